/* gai_errno.h: getaddrinfo()'s errors as errno, the one mapping shared by libgsmtaplog and libgsmtaplog-osmo. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <errno.h>
#include <netdb.h>

/*! getaddrinfo() has its own error space; callers of gsmtaplog_open() get errno. */
static inline int gai_errno(int gai)
{
	switch (gai) {
	case EAI_SYSTEM:	return errno;
	case EAI_MEMORY:	return ENOMEM;
	case EAI_AGAIN:		return EAGAIN;
	case EAI_FAMILY:	return EAFNOSUPPORT;
	case EAI_SERVICE:	return EINVAL;
	default:		return ENOENT;	/* EAI_NONAME, EAI_NODATA, EAI_FAIL */
	}
}
