/* udp_port.h: the one rule for a UDP port string, shared by the library and gsmtap-log. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>

/*! Whether getaddrinfo() would read \a port as a number that is no port.
 *  glibc takes any string that strtoul() reads to its end as a number and
 *  keeps its low 16 bits: "99999" would become 34463, "0", "65536" and ""
 *  port 0, and "+4729" or " 4729" would pass.  A number must be 1..65535 in
 *  plain digits; anything else is a service name for getaddrinfo() to look up.
 *  May change errno. */
static inline bool udp_port_invalid(const char *port)
{
	char *end;
	unsigned long n = strtoul(port, &end, 10);

	if (*end)
		return false;
	return !isdigit((unsigned char)port[0]) || n == 0 || n > 65535;
}
