/* fuzz_multipart.c: libFuzzer target for the multipart/form-data reader of
 * report uploads (http_multipart_report): the first line of the input is the
 * Content-Type header value (boundary parameter and all), the rest is the
 * body, copied into a buffer of exactly its size so AddressSanitizer sees any
 * read past its end.
 *
 * Oracle beyond the sanitizers: text returned is NUL-terminated at the length
 * given and never longer than the body it came from. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "server_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nl = memchr(data, '\n', size);
    if (!nl || nl - data > 400)
        return 0;
    size_t tl = (size_t)(nl - data);
    char *type = malloc(tl + 1);
    size_t bl = size - tl - 1;
    char *body = malloc(bl ? bl : 1);
    if (!type || !body)
        abort();
    memcpy(type, data, tl);
    type[tl] = '\0';
    memcpy(body, nl + 1, bl);

    char *text = NULL;
    size_t len = 0;
    int r = http_multipart_report(type, body, bl, &text, &len);
    if (r == 1 && text) {
        if (len > bl || text[len] != '\0')
            abort();
    } else if (r != 1 && text) {
        abort(); /* out-parameter written on failure */
    }
    free(text);
    free(body);
    free(type);
    return 0;
}
