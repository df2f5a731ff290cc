/* A code object that calls a function it does not define: an import. */
extern int imported(int);

int call_import(int x) { return imported(x) + 1; }
