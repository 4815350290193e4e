/* version.h: which libosmocore a process has loaded, told by the SONAME of the object that defines a symbol. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>

/*! The SONAME (e.g. "libosmocore.so.19") of the loaded object that defines \a symbol,
 *  read from that object's dynamic section in memory, not from a file name.
 *  \param[out] out  NUL-terminated; cut to \a size - 1 bytes
 *  \returns 0, -ENOENT when no loaded object defines \a symbol, or -ENODATA when
 *           the object that does has no SONAME */
int osmo_loaded_soname(const char *symbol, char *out, size_t size);
