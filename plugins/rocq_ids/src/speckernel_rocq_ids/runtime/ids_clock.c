/* The monotonic clock for the IDS replica runtime: OCaml 4.13's Unix library has only
   wall-clock time (gettimeofday), which jumps with NTP and cannot time one operation. */
#include <time.h>
#include <caml/mlvalues.h>

value ids_monotonic_ns(value unit)
{
  struct timespec ts;
  (void)unit;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return Val_long((long)ts.tv_sec * 1000000000L + ts.tv_nsec);
}
