/* ring.c: placeholder until the module lands. */
