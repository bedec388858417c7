/* main.c - the `tvs` command (placeholder until the driver lands). */
#include <stdio.h>
int main(void) {
  puts("tvs");
  return 0;
}
