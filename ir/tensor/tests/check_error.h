// CHECK_ERROR(expr, text): expr throws adlab::Error whose what() is exactly text (STYLE "Tests").
#pragma once

#include <catch2/catch.hpp>

#include "ir/error.h"

#define CHECK_ERROR(expr, text) \
  CHECK_THROWS_MATCHES(expr, ::adlab::Error, Catch::Matchers::Message(text))
