/* streams.c: placeholder until the module lands. */
