// SPDX-License-Identifier: GPL-3.0-or-later
// A peer for the start-up row of bench.sh: TFLite GPU's greedy-by-size
// assignment (GreedyBySizeAssignment, built from TensorFlow's own source by
// build-aux/build-tflite-driver.sh) run on one MiniMalloc CSV, its offsets
// written as memplan-cli plan -f csv writes them, so that the two compare
// byte for byte. As small a driver as such a tool can have: read, plan,
// print.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tensorflow/lite/delegates/gpu/common/memory_management/greedy_by_size_assignment.h"

int
main (int argc, char **argv)
{
  if (argc != 2)
    {
      std::fprintf (stderr, "usage: tflite-driver FILE.csv\n");
      return 2;
    }
  FILE *f = std::fopen (argv[1], "r");
  if (!f)
    {
      std::perror (argv[1]);
      return 1;
    }
  std::vector<tflite::gpu::TensorUsageRecord<size_t>> records;
  std::vector<std::string> ids;
  std::vector<size_t> uppers;
  char line[512];
  bool header = true;
  while (std::fgets (line, sizeof line, f))
    {
      if (header)
        {
          header = false;
          continue;
        }
      char id[256];
      unsigned long long lower, upper, size;
      if (std::sscanf (line, "%255[^,],%llu,%llu,%llu", id, &lower, &upper, &size) != 4
          || upper <= lower)
        {
          std::fprintf (stderr, "%s: line %zu: not id,lower,upper,size\n", argv[1],
                        records.size () + 2);
          return 1;
        }
      // MiniMalloc's [lower, upper) is TFLite's [first_task, last_task]
      records.emplace_back (size, lower, upper - 1);
      ids.emplace_back (id);
      uppers.push_back (upper);
    }
  std::fclose (f);

  tflite::gpu::OffsetsAssignment assignment;
  absl::Status status = tflite::gpu::GreedyBySizeAssignment (records, 1, &assignment);
  if (!status.ok ())
    {
      std::fprintf (stderr, "%s: %s\n", argv[1], std::string (status.message ()).c_str ());
      return 1;
    }
  std::printf ("id,lower,upper,size,offset\n");
  for (size_t i = 0; i < records.size (); i++)
    std::printf ("%s,%zu,%zu,%zu,%zu\n", ids[i].c_str (), records[i].first_task, uppers[i],
                 records[i].tensor_size, assignment.offsets[i]);
  return 0;
}
