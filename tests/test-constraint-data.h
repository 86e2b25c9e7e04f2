/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Small constrained graphs shared by the constraint tests (issue 28). */
#pragma once

/* a (64 B) ops 0-3, b (48 B) ops 1-2, c (32 B) ops 2-3, y (16 B) op 3; a
 * keeps GAP of its space during ops 1-2. */
#define GAPPY_JSON(GAP)                                                                            \
  "{\"format\":\"memplan.graph/1\",\"name\":\"gappy\",\"alignment\":1,\"tensors\":["               \
  "{\"name\":\"x\",\"size\":16,\"kind\":\"input\"},"                                               \
  "{\"name\":\"a\",\"size\":64,\"gaps\":[" GAP "]},"                                               \
  "{\"name\":\"b\",\"size\":48},{\"name\":\"c\",\"size\":32},"                                     \
  "{\"name\":\"y\",\"size\":16,\"kind\":\"output\"}],\"ops\":["                                    \
  "{\"name\":\"f\",\"inputs\":[\"x\"],\"outputs\":[\"a\"]},"                                       \
  "{\"name\":\"g\",\"inputs\":[\"x\"],\"outputs\":[\"b\"]},"                                       \
  "{\"name\":\"h\",\"inputs\":[\"b\"],\"outputs\":[\"c\"]},"                                       \
  "{\"name\":\"k\",\"inputs\":[\"a\",\"c\"],\"outputs\":[\"y\"]}]}"

/* x (input) pinned at 64 for op 0, a (32 B) aligned to 32, b preferred at
 * 96, y (output) pinned at 0 (tests/test-constraints.c works the offsets
 * out). */
#define PIN_JSON                                                                                   \
  "{\"format\":\"memplan.graph/1\",\"name\":\"pin\",\"alignment\":1,\"tensors\":["                 \
  "{\"name\":\"x\",\"size\":16,\"kind\":\"input\",\"fixed_offset\":64},"                           \
  "{\"name\":\"a\",\"size\":32,\"alignment\":32},"                                               \
  "{\"name\":\"b\",\"size\":16,\"preferred_offset\":96},"                                        \
  "{\"name\":\"y\",\"size\":8,\"kind\":\"output\",\"fixed_offset\":0}],\"ops\":["                \
  "{\"name\":\"f\",\"inputs\":[\"x\"],\"outputs\":[\"a\"]},"                                       \
  "{\"name\":\"g\",\"inputs\":[\"a\"],\"outputs\":[\"b\"]},"                                       \
  "{\"name\":\"h\",\"inputs\":[\"b\",\"a\"],\"outputs\":[\"y\"]}]}"
