/* netaddr.c: which network addresses a webhook may reach.
 *
 * A team chooses its webhook URL, so without a guard the server could be
 * made to POST to itself (127.0.0.1), to the cloud metadata service
 * (169.254.169.254), or into the private network it sits in (SSRF). The
 * classifier below names the class of one resolved address; the HTTP
 * client (client.c) asks it about every address libcurl is about to
 * connect to, after DNS, so a name that resolves, or later re-resolves, to
 * a private address is caught where it matters. Registration asks it too,
 * for URLs whose host is an address literal, to refuse early with a 400.
 * Plain C on sockaddr values: no library, no I/O, unit-tested directly. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "server_int.h"

const char *addr_class_str(enum addr_class c)
{
    switch (c) {
    case ADDR_PUBLIC: return "public";
    case ADDR_LOOPBACK: return "loopback";
    case ADDR_PRIVATE: return "private";
    case ADDR_LINK_LOCAL: return "link-local";
    case ADDR_MULTICAST: return "multicast";
    case ADDR_UNSPECIFIED: return "unspecified";
    case ADDR_RESERVED: return "reserved";
    }
    return "reserved";
}

/* a (host byte order) within net/bits */
static int in4(unsigned long a, unsigned long net, int bits)
{
    unsigned long mask = bits == 0 ? 0 : (0xffffffffUL << (32 - bits)) & 0xffffffffUL;
    return (a & mask) == net;
}

static enum addr_class classify4(const unsigned char b[4])
{
    unsigned long a = ((unsigned long)b[0] << 24) | ((unsigned long)b[1] << 16) | ((unsigned long)b[2] << 8) | b[3];
    if (a == 0)
        return ADDR_UNSPECIFIED;
    if (in4(a, 0x00000000UL, 8))       /* 0.0.0.0/8 "this network": Linux connects it to the host itself */
        return ADDR_UNSPECIFIED;
    if (in4(a, 0x7f000000UL, 8))       /* 127.0.0.0/8 */
        return ADDR_LOOPBACK;
    if (in4(a, 0x0a000000UL, 8) ||     /* 10.0.0.0/8 */
        in4(a, 0xac100000UL, 12) ||    /* 172.16.0.0/12 */
        in4(a, 0xc0a80000UL, 16) ||    /* 192.168.0.0/16 */
        in4(a, 0x64400000UL, 10) ||    /* 100.64.0.0/10 carrier-grade NAT, inside the provider */
        in4(a, 0xc6120000UL, 15))      /* 198.18.0.0/15 benchmarking networks */
        return ADDR_PRIVATE;
    if (in4(a, 0xa9fe0000UL, 16))      /* 169.254.0.0/16, cloud metadata lives here */
        return ADDR_LINK_LOCAL;
    if (in4(a, 0xe0000000UL, 4))       /* 224.0.0.0/4 */
        return ADDR_MULTICAST;
    if (in4(a, 0xf0000000UL, 4) ||     /* 240.0.0.0/4 and the broadcast address */
        in4(a, 0xc0000000UL, 24) ||    /* 192.0.0.0/24 protocol assignments */
        in4(a, 0xc0000200UL, 24) ||    /* 192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24 documentation */
        in4(a, 0xc6336400UL, 24) || in4(a, 0xcb007100UL, 24))
        return ADDR_RESERVED;
    return ADDR_PUBLIC;
}

static enum addr_class classify6(const unsigned char b[16])
{
    static const unsigned char zero[16] = {0};
    static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    static const unsigned char nat64[12] = {0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0};
    if (memcmp(b, zero, 16) == 0)
        return ADDR_UNSPECIFIED;
    if (memcmp(b, zero, 15) == 0 && b[15] == 1)
        return ADDR_LOOPBACK;
    /* Forms that carry an IPv4 address reach that address: judge it. */
    if (memcmp(b, mapped, 12) == 0 || memcmp(b, nat64, 12) == 0)
        return classify4(b + 12);
    if (memcmp(b, zero, 12) == 0)                 /* ::a.b.c.d, deprecated IPv4-compatible */
        return classify4(b + 12);
    if (b[0] == 0x20 && b[1] == 0x02)             /* 2002::/16 6to4 */
        return classify4(b + 2);
    if (b[0] == 0xff)                             /* ff00::/8 */
        return ADDR_MULTICAST;
    if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80)    /* fe80::/10 */
        return ADDR_LINK_LOCAL;
    if ((b[0] & 0xfe) == 0xfc ||                  /* fc00::/7 unique local */
        (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0))  /* fec0::/10 old site-local */
        return ADDR_PRIVATE;
    if ((b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8) || /* 2001:db8::/32 documentation */
        (b[0] == 0x01 && b[1] == 0x00 && memcmp(b + 2, zero, 6) == 0))   /* 100::/64 discard */
        return ADDR_RESERVED;
    return ADDR_PUBLIC;
}

enum addr_class addr_classify(const struct sockaddr *sa)
{
    if (sa && sa->sa_family == AF_INET) {
        const struct sockaddr_in *s4 = (const struct sockaddr_in *)(const void *)sa;
        return classify4((const unsigned char *)&s4->sin_addr);
    }
    if (sa && sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)(const void *)sa;
        return classify6(s6->sin6_addr.s6_addr);
    }
    return ADDR_RESERVED; /* unix sockets and the like: never a webhook's business */
}

void addr_text(const struct sockaddr *sa, char *out, size_t outlen)
{
    const void *a = NULL;
    if (sa && sa->sa_family == AF_INET)
        a = &((const struct sockaddr_in *)(const void *)sa)->sin_addr;
    else if (sa && sa->sa_family == AF_INET6)
        a = &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
    if (!a || !inet_ntop(sa->sa_family, a, out, (socklen_t)outlen))
        snprintf(out, outlen, "an unknown address");
}

int addr_literal_class(const char *text, enum addr_class *out)
{
    union {
        struct sockaddr sa;
        struct sockaddr_in s4;
        struct sockaddr_in6 s6;
    } u;
    memset(&u, 0, sizeof u);
    if (inet_pton(AF_INET, text, &u.s4.sin_addr) == 1)
        u.s4.sin_family = AF_INET;
    else if (inet_pton(AF_INET6, text, &u.s6.sin6_addr) == 1)
        u.s6.sin6_family = AF_INET6;
    else
        return 0;
    *out = addr_classify(&u.sa);
    return 1;
}

int url_host_literal_class(const char *url, enum addr_class *out, char *host, size_t hostlen)
{
    const char *p = strstr(url, "://");
    if (!p)
        return 0;
    p += 3;
    size_t n = strcspn(p, "/?#");
    char auth[300];
    if (n == 0 || n >= sizeof auth)
        return 0;
    memcpy(auth, p, n);
    auth[n] = '\0';
    char *h = strrchr(auth, '@'); /* user:password@host:port */
    h = h ? h + 1 : auth;
    if (*h == '[') {
        char *end = strchr(h, ']');
        if (!end)
            return 0;
        *end = '\0';
        h++;
        char *zone = strchr(h, '%'); /* fe80::1%25eth0 */
        if (zone)
            *zone = '\0';
    } else {
        char *colon = strchr(h, ':');
        if (colon)
            *colon = '\0';
    }
    if (!addr_literal_class(h, out))
        return 0; /* a name: judged on what it resolves to, at delivery */
    snprintf(host, hostlen, "%s", h);
    return 1;
}
