/* plugin.c: the plugin's entry points, the only symbols the module exports. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#define WS_BUILD_DLL
#include <ws_version.h>
#include <ws_symbol_export.h>
#include <epan/proto.h>
#if WIRESHARK_VERSION_MAJOR > 4 || (WIRESHARK_VERSION_MAJOR == 4 && WIRESHARK_VERSION_MINOR >= 2)
#include <wsutil/plugins.h>
#endif

void proto_register_gsmtaplog(void);
void proto_reg_handoff_gsmtaplog(void);

WS_DLL_PUBLIC_DEF const char plugin_version[] = GSMTAPLOG_VERSION;
/* Wireshark loads a plugin only into the major.minor it was built for. */
WS_DLL_PUBLIC_DEF const int plugin_want_major = WIRESHARK_VERSION_MAJOR;
WS_DLL_PUBLIC_DEF const int plugin_want_minor = WIRESHARK_VERSION_MINOR;

WS_DLL_PUBLIC void plugin_register(void);

void plugin_register(void)
{
	static proto_plugin plug;

	plug.register_protoinfo = proto_register_gsmtaplog;
	plug.register_handoff = proto_reg_handoff_gsmtaplog;
	proto_register_plugin(&plug);
}

/* Newer releases ask what kind of plugin this is before loading it. */
#ifdef WS_PLUGIN_DESC_DISSECTOR
WS_DLL_PUBLIC uint32_t plugin_describe(void);

uint32_t plugin_describe(void)
{
	return WS_PLUGIN_DESC_DISSECTOR;
}
#endif
