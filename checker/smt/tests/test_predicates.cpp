#include <catch2/catch.hpp>
#include <iostream>

#include "ir/affine.h"
#include "ir/logic/predicates.h"
#include "ir/rewrite/pattern.h"
#include "ir/rewrite/tables/tables.h"
#include "ir/syntax/parser.h"
#include "ir/syntax/printer.h"

using namespace adlab::ir;
