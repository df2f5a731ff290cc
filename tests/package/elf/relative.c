/* A code object with relative relocations: a table of pointers into its
 * own data. The loader test rewrites one relocation to point outside. */
static int values[4] = {10, 20, 30, 40};
int *const table[4] = {&values[0], &values[1], &values[2], &values[3]};

int read_entry(int i) { return *table[i & 3]; }
