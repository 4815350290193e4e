/* pcapng.c: placeholder until the module lands. */
