/* fuzz_natsbatch.c: libFuzzer harness: a NATS batch body (natsbatch.h) of any bytes: read only when whole, each datagram inside it, and written again to the same bytes. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "natsbatch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct natsbatch_reader rd;
	struct rx_record r;
	uint8_t *again;
	size_t len = NATSBATCH_HEAD_LEN;
	uint32_t n = 0;
	int count = natsbatch_open(&rd, data, size);

	if (count < 0)
		return 0;
	FUZZ_CHECK(count > 0 && (uint32_t)count <= NATSBATCH_COUNT_MAX);
	again = malloc(size);
	FUZZ_CHECK(again);
	natsbatch_begin(again);
	while (natsbatch_next(&rd, &r)) {
		size_t put;

		FUZZ_CHECK(r.data >= data && r.data + r.len <= data + size);
		FUZZ_CHECK(r.src.ss_family == r.dst.ss_family);
		FUZZ_CHECK(r.src.ss_family == AF_INET || r.src.ss_family == AF_INET6);
		FUZZ_CHECK(len + natsbatch_size(&r) <= size);
		put = natsbatch_put(again, again + len, &r);
		FUZZ_CHECK(put == natsbatch_size(&r));
		len += put;
		n++;
	}
	FUZZ_CHECK(n == (uint32_t)count && len == size);
	/* one layout, one way to write it: what was read is what a writer writes */
	FUZZ_CHECK(!memcmp(again, data, size));
	free(again);
	return 0;
}
