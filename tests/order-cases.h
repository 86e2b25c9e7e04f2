/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* The graph worked by hand in test-order.c (see the working there), shared
 * with the command-line tests. */
static const char hand_dag[] =
  "{\"format\": \"memplan.graph/1\", \"name\": \"hand\", \"alignment\": 1, \"tensors\": ["
  "{\"name\": \"x\", \"size\": 8, \"kind\": \"input\"}, {\"name\": \"a\", \"size\": 1}, "
  "{\"name\": \"b\", \"size\": 4}, {\"name\": \"c\", \"size\": 1}, "
  "{\"name\": \"d\", \"size\": 1}, {\"name\": \"e\", \"size\": 1}, "
  "{\"name\": \"f\", \"size\": 2}, {\"name\": \"g\", \"size\": 1, \"kind\": \"output\"}], "
  "\"ops\": [{\"name\": \"A\", \"inputs\": [\"x\"], \"outputs\": [\"a\"]}, "
  "{\"name\": \"B\", \"inputs\": [\"a\"], \"outputs\": [\"b\"]}, "
  "{\"name\": \"D\", \"inputs\": [\"a\"], \"outputs\": [\"d\"]}, "
  "{\"name\": \"E\", \"inputs\": [\"a\"], \"outputs\": [\"e\"]}, "
  "{\"name\": \"C\", \"inputs\": [\"b\"], \"outputs\": [\"c\"]}, "
  "{\"name\": \"F\", \"inputs\": [\"d\", \"e\"], \"outputs\": [\"f\"]}, "
  "{\"name\": \"G\", \"inputs\": [\"c\", \"f\"], \"outputs\": [\"g\"]}]}";
