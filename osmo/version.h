/* version.h: which libosmocore a process has loaded: the SONAME of the object that defines a symbol, and the release its file name tells. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/*! The SONAME (e.g. "libosmocore.so.19") of the loaded object that defines \a symbol,
 *  read from that object's dynamic section in memory, not from a file name.
 *  \param[out] out  NUL-terminated; cut to \a size - 1 bytes
 *  \returns 0, -ENOENT when no loaded object defines \a symbol, or -ENODATA when
 *           the object that does has no SONAME */
int osmo_loaded_soname(const char *symbol, char *out, size_t size);

/*! Who checks the libosmocore of the process, for the lines it says. */
struct osmo_checker {
	const char *prefix;	/*!< the line's start: "libgsmtaplog-osmo-preload" */
	const char *what;	/*!< "the shim" */
	const char *aside;	/*!< what happens instead: "'log gsmtap' stays libosmocore's own target" */
};

/*! The one line of a checker that steps aside: "PREFIX: this process has
 *  HAS HOW; WHAT is built and tested for GSMTAPLOG_OSMO_SERVES only, so ASIDE". */
void osmo_say_aside(const struct osmo_checker *c, const char *has, const char *how);

/*! Whether the process's libosmocore, whose SONAME the caller found to be
 *  GSMTAPLOG_OSMO_SONAME, is one of its releases this build knows
 *  (releases.h), told by the libtool version in the real name of its
 *  file (libosmocore.so.22.4.2 is 1.14: osmo/meson.build); or one that
 *  GSMTAPLOG_OSMO_RELEASE=NAME takes as the known release NAME, at the
 *  operator's risk, said in one line.  Otherwise osmo_say_aside() names it.
 *  Once per process is the caller's. */
bool osmo_release_known(const struct osmo_checker *c);
