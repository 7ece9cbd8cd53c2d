// The doubling chain at depths 21 to 25 (slow label: naive makes up to 2^26 - 1 calls).
#define ADLAB_DUALREV_SLOW 1
#include "test_complexity.cpp"  // NOLINT(bugprone-suspicious-include): same checks, larger depths
