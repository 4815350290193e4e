/* weak.h: in the LD_PRELOAD shim, libosmocore and talloc are whatever the process loaded: referenced weakly, checked before use. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The shim must not name libosmocore.so.N as a dependency: in a program
 * built against another release that would load a second libosmocore into
 * it.  So it binds to the functions of the libosmocore already in the
 * process, and every file of the shim that calls one includes this header:
 * a weak reference is 0 instead of a load-time error when the process has no
 * libosmocore at all (a shell that inherited LD_PRELOAD, a BIND_NOW program).
 */
#include <stdbool.h>
#include <talloc.h>

#include <osmocom/core/logging.h>

#pragma weak log_target_create
#pragma weak log_target_destroy
#pragma weak log_category_name
#pragma weak talloc_named_const
#pragma weak _talloc_set_destructor
#pragma weak talloc_check_name

/*! Whether the process has every function the target calls. */
static inline bool osmo_weak_resolved(void)
{
	return log_target_create && log_target_destroy && log_category_name &&
	       talloc_named_const && _talloc_set_destructor && talloc_check_name;
}
