/* server_int.h: what the files of server/ share.
 *
 * server/ translates: command lines, HTTP and JSON in, structs to engine and
 * db, structs back out. civetweb stays in http*.c, cJSON in json_*.c and the
 * http helpers, mbedTLS in crypto.c, libcurl in client*.c. */
#ifndef GPUPLAN_SERVER_INT_H
#define GPUPLAN_SERVER_INT_H

#include <assert.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "status.h"

struct cJSON;
struct db;
struct db_batcher;
struct mg_connection;
struct mg_request_info;
struct mg_context;
struct catalog;
struct thread_slot;
struct engine_workload;
struct engine_estimate_request;
struct engine_recommendation;
struct engine_plan;
struct http_req;

#define GPUPLAN_VERSION "0.1.0"

/* ---- logging (log.c). Only the server logs; never secrets or bodies. ---- */
enum log_level { LOG_DEBUG, LOG_INFO, LOG_WARN, LOG_ERROR };
void log_set_level(enum log_level min);
void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- command line (main.c, cli_*.c) ---- */
struct command {
    const char *name;
    int (*run)(int argc, char **argv); /* argv[0] is the command name */
    const char *summary;
};
/* Prints "gpuplan: <what>: <why>" on stderr. */
void cli_error(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Reads a whole file ("-" is stdin) into a NUL-terminated heap buffer, at most
 * limit bytes; caller frees with free(). */
enum status cli_read_file(const char *path, size_t limit, char **out, size_t *len, char *err, size_t errlen);
/* Parses a whole decimal number within [lo, hi]; the one checked number parser. */
enum status parse_long(const char *s, long lo, long hi, long *out);

int cli_serve(int argc, char **argv);
int cli_backup(int argc, char **argv);
int cli_recommend(int argc, char **argv);
int cli_estimate(int argc, char **argv);

/* ---- planner JSON (json_plan.c) ----
 * Decoders fill the struct or name the offending field ("model.layers") in
 * field and say why in err ("model.layers: must be a whole number"). */
/* json_write.c: compact JSON text of a cJSON tree, the same JSON value as
 * cJSON_PrintUnformatted (numbers read back as the same doubles), faster.
 * Heap string (free()); NULL on failure. */
char *json_write(const struct cJSON *doc, size_t *len);
/* Byte for byte what cJSON_PrintUnformatted writes for doc, faster (stored
 * texts keep cJSON's form). Heap string (free()); NULL on failure. */
char *json_write_cjson(const struct cJSON *doc, size_t *len);
/* json_write_cjson, and every number of doc is set to the double its text
 * reads back as: afterwards doc equals cJSON_Parse of the text returned. */
char *json_write_cjson_settle(struct cJSON *doc, size_t *len);
/* The shortest of the forms json_write tries that reads back as d; "null"
 * for NaN and infinities. */
void json_write_number(char out[32], double d);
/* The same text, found faster when d is a multiple of 10^-dec (1 <= dec <= 9);
 * any d and dec give json_write_number's text. */
void json_write_number_dec(char out[32], double d, int dec);
/* A direct JSON writer (json_write.c): members written in order, no tree. */
struct json_buf {
    char *p;
    size_t len, cap;
    size_t room;   /* bytes of the allocation in front of p (jw_init_room); 0 for others */
    int failed;
};
#define JW_DEPTH_MAX 32
struct jw_rec;
struct jw {
    struct json_buf b;
    int depth;
    unsigned char first[JW_DEPTH_MAX];   /* no member written yet at this level */
    char close[JW_DEPTH_MAX];            /* '}' or ']' for each open level */
    /* The recorded part being written again (jw_rec_begin), NULL when none:
     * the entry of the call it is at (cur), the end of the recorded
     * entries while every call so far was of the recorded kind (end; else
     * no further than cur, and both NULL when there is no part: cur < end
     * is the one test of a replay), the run of recorded bytes taken and
     * not yet copied [run_from, run_end) of its text, the part's start in
     * b, the writer's level there, and the calls taken (added to the
     * recording's count when the part ends). */
    struct jw_rec *rec;
    struct jw_ent *cur, *end;
    const char *ks;   /* rec's keys (the inline checks read an entry's string at ks + sat) */
    int depth0;
    uint32_t run_from, run_end;   /* 32 bits, as the entries' offsets they are compared with */
    size_t start;
    unsigned long long taken;
    unsigned long long wrote;   /* calls written (a block counts its calls from it) */
    /* A block being written (jw_block): how many are open (nested ones
     * are written plainly), and while the outermost one is written
     * outside the recording, the recording and its replay point set
     * aside, the block's key, level and start in b. */
    int blk_level, blk_depth;
    struct jw_rec *blk_rec;
    struct jw_ent *blk_cur, *blk_end;
    const void *blk_key;
    const char *blk_site;
    size_t blk_klen, blk_mark;
    uint64_t blk_kk;
    unsigned long long blk_wrote;
    /* A template's writing (jw_tpl_begin): its holes are listed in key. */
    struct jw_key *key;
};
void jw_init(struct jw *j);
/* jw_init with the text's buffer allocated at cap bytes (a size known from
 * the last such document: no growing, no copy on the way). */
void jw_init_cap(struct jw *j, size_t cap);
/* jw_init_cap with room free bytes kept in front of the text: jw_finish's
 * text is then text - room's allocation (free(text - room)), and a sender
 * may write an HTTP head there (http_send_room). */
void jw_init_room(struct jw *j, size_t room, size_t cap);
/* Closes the level open (jw_end, inline below, takes recorded bytes first). */
void jw_close(struct jw *j);
/* The _k forms take the key's length; the plain ones below are inline so
 * that the length of a literal key is known when compiling the caller
 * (json_plan.c writes ~900 keys an answer). */
/* Opens an object (kind JW_K_OBJ) or an array (JW_K_ARR). */
void jw_open_k(struct jw *j, int kind, const char *key, size_t klen);
void jw_num_k(struct jw *j, const char *key, size_t klen, double v);
/* jw_num_k when the recorded call at the replay point (e) is a number with
 * this key and another value (jw_num's check found it). */
struct jw_ent;
void jw_num_at(struct jw *j, struct jw_ent *e, const char *key, size_t klen, double v);
void jw_str_k(struct jw *j, const char *key, size_t klen, const char *s);
/* jw_str_k for jw_str_in, which has compared the string with the recording
 * already: written (the string read to its NUL within the cap bytes). */
void jw_str_in_k(struct jw *j, const char *key, size_t klen, const char *s, size_t cap);
void jw_bool_k(struct jw *j, const char *key, size_t klen, int v);
void jw_null_k(struct jw *j, const char *key, size_t klen);
/* A recording's entries (json_write.c, "recorded parts", says how they are
 * kept); here so that the check whether a call is the recorded one is
 * inlined into the writers (jw_rec_hit, below): a memo hit's answer makes
 * ~1,000 such calls, most of them hits, and a call each cost more than
 * the check. */
enum { JW_K_NUM = 1, JW_K_STR, JW_K_BOOL, JW_K_NULL, JW_K_OBJ, JW_K_ARR, JW_K_END, JW_K_RAW0, JW_K_RAW1, JW_K_BLOCK };
/* An entry's kind and key length in one word (the pair a call is checked
 * for first; the length is known when compiling a call with a literal key). */
#define JW_KK(kind, klen) ((uint64_t)(klen) << 4 | (uint64_t)(kind))
/* 40 bytes: a memo hit's answer reads hundreds of them in order, and at
 * 72 bytes (with a heap string of its own per string entry) they were more
 * memory than the text they stand for. Offsets are 32 bits: a recording's
 * buffers are kept below JW_REC_MAX. raw and the string's place share
 * their bytes: raw is read only by a call with a tagged kk, which only a
 * number entry carries (jw_num_tagged sets kk and raw together), and the
 * string's place only in string and block entries. */
struct jw_ent {
    const char *key;
    uint64_t kk;     /* JW_KK(kind, key length) */
    uint64_t bits;   /* a number's bits, a bool's 0 or 1, a block's count of calls */
    uint32_t at, out;    /* the call wrote out bytes, kept at text[at, at + out) (not for JW_K_RAW*) */
    union {
        uint64_t raw;    /* a tagged number's input bits (jw_num_tagged; kk carries the tag) */
        struct {
            uint32_t sat, slen;   /* a string's text (JW_K_STR), a block's key bytes (JW_K_BLOCK):
                                   * slen bytes and a NUL at the recording's keys + sat */
        };
    };
};
_Static_assert(sizeof(struct jw_ent) == 40, "jw_ent: 40 bytes");
#define JW_REC_MAX ((size_t)1 << 30)
struct jw_rec {
    struct jw_ent *e;
    int n, cap;
    char *text;
    size_t len, tcap;
    /* The strings and block keys of the entries, one after the other in
     * the order of the calls (read in order while replaying, where
     * separate allocations were scattered over the heap): a changed one
     * is written over its old bytes when it fits there, else appended;
     * jw_rec_end packs them again when stale bytes outgrow the rest. */
    char *keys;
    size_t kused, kcap, kpacked;
    int depth0, first0;   /* the writer's level and its first flag where the part starts */
    int open;             /* begun, not ended: entries and text may disagree */
    int broken;           /* this writing is not kept (memory ran out, a level closed under the part) */
    unsigned long long taken, written;
};
#ifndef NDEBUG
/* Whether e's recorded bytes carry this key's text: debug builds (the
 * sanitizer runs of the tests) check every key taken by address, so a key
 * held in a reused, changing buffer is caught instead of copying an old
 * key's bytes. */
int jw_rec_key_is(const struct jw *j, const struct jw_ent *e, const char *key, size_t klen);
#endif
/* The recorded entry at the replay point when it is of this kind with this
 * key (compared by address and length, so keys must be constant strings),
 * else NULL. */
static inline struct jw_ent *jw_rec_at(struct jw *j, int kind, const char *key, size_t klen)
{
    struct jw_ent *e = j->cur;
    if (e >= j->end || e->kk != JW_KK(kind, klen) || e->key != key)
        return NULL;
    assert(!key || jw_rec_key_is(j, e, key, klen));
    return e;
}
/* jw_rec_take when e's bytes do not continue the run (json_write.c): the
 * run is copied first and a new one starts at e. */
void jw_rec_take_far(struct jw *j, struct jw_ent *e);
/* e is the call being made: its recorded bytes join the run taken so far
 * (the writer's comma flag is then as after the call); always 1. */
static inline int jw_rec_take(struct jw *j, struct jw_ent *e)
{
    if (j->run_end != e->at) {
        jw_rec_take_far(j, e);
        return 1;
    }
    j->run_end += e->out;
    j->cur = e + 1;
    j->taken++;
    j->first[j->depth] = 0;
    return 1;
}
/* Whether the call of this kind, key and value bits is the recorded one
 * and its bytes were taken. */
static inline int jw_rec_hit(struct jw *j, int kind, const char *key, size_t klen, uint64_t bits)
{
    struct jw_ent *e = jw_rec_at(j, kind, key, klen);
    return e && e->bits == bits && jw_rec_take(j, e);
}
/* Opening a level whose bytes were taken: the level's state (the
 * depth limit was checked when it was written). */
static inline void jw_rec_level(struct jw *j, char close)
{
    j->depth++;
    j->first[j->depth] = 1;
    j->close[j->depth] = close;
}
/* The writers' calls are always inlined: a literal key's length and the
 * recorded-call check then cost no call (the compiler kept an out-of-line
 * copy of some for the larger writers). */
#define JW_INLINE inline __attribute__((always_inline))
static JW_INLINE void jw_end(struct jw *j)
{
    /* a level opened before the recorded part is never taken (jw_close) */
    if (j->depth > j->depth0 && jw_rec_hit(j, JW_K_END, NULL, 0, 0)) {
        j->depth--;
        return;
    }
    jw_close(j);
}
/* An object or array level (kind JW_K_OBJ or JW_K_ARR) */
static JW_INLINE void jw_open(struct jw *j, int kind, const char *key)
{
    size_t klen = key ? strlen(key) : 0;
    if (j->depth + 1 < JW_DEPTH_MAX && jw_rec_hit(j, kind, key, klen, 0)) {
        jw_rec_level(j, kind == JW_K_OBJ ? '}' : ']');
        return;
    }
    jw_open_k(j, kind, key, klen);
}
/* key NULL in arrays and for the root */
static JW_INLINE void jw_obj(struct jw *j, const char *key)
{
    jw_open(j, JW_K_OBJ, key);
}
static JW_INLINE void jw_arr(struct jw *j, const char *key)
{
    jw_open(j, JW_K_ARR, key);
}
/* NaN/inf: null */
static JW_INLINE void jw_num(struct jw *j, const char *key, double v)
{
    size_t klen = key ? strlen(key) : 0;
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    struct jw_ent *e = jw_rec_at(j, JW_K_NUM, key, klen);
    if (!e)
        jw_num_k(j, key, klen, v);
    else if (e->bits != bits)
        jw_num_at(j, e, key, klen, v);
    else
        jw_rec_take(j, e);
}
static JW_INLINE void jw_str(struct jw *j, const char *key, const char *s)
{
    size_t klen = key ? strlen(key) : 0;
    struct jw_ent *e = jw_rec_at(j, JW_K_STR, key, klen);
    if (e && strcmp(j->ks + e->sat, s ? s : "") == 0 && jw_rec_take(j, e))
        return;
    jw_str_k(j, key, klen, s);
}
/* jw_str for a string held in an array of cap bytes (a char[cap] member):
 * all of them may be read, so an unchanged string is told by one memcmp
 * of the recorded length and its NUL, which cannot read past the array
 * (slen < cap), instead of strcmp's scan for the end of both. Equal
 * slen + 1 bytes mean s ends where the recorded text ends, and the
 * recorded text has no NUL before that: the same string. */
static JW_INLINE void jw_str_in(struct jw *j, const char *key, const char *s, size_t cap)
{
    size_t klen = key ? strlen(key) : 0;
    struct jw_ent *e = jw_rec_at(j, JW_K_STR, key, klen);
    if (e && e->slen < cap && memcmp(j->ks + e->sat, s, e->slen + 1) == 0 && jw_rec_take(j, e))
        return;
    jw_str_in_k(j, key, klen, s, cap);
}
static JW_INLINE void jw_bool(struct jw *j, const char *key, int v)
{
    size_t klen = key ? strlen(key) : 0;
    if (jw_rec_hit(j, JW_K_BOOL, key, klen, v != 0))
        return;
    jw_bool_k(j, key, klen, v);
}
static JW_INLINE void jw_null(struct jw *j, const char *key)
{
    size_t klen = key ? strlen(key) : 0;
    if (jw_rec_hit(j, JW_K_NULL, key, klen, 0))
        return;
    jw_null_k(j, key, klen);
}
/* A number written as f(x), f a pure function of x named by a tag (1 to
 * 2^31: the rounding and its digits, json_plan.c): the entry carries the
 * tag in kk's upper half and the bits of x in raw, so an unchanged x is
 * told, and its recorded bytes taken, before f is computed. A tagged entry
 * is written only from a call with that tag, key and x (jw_num_tagged sets
 * raw whenever it writes or takes one): its bytes are those of f(x). An
 * untagged call never matches a tagged entry (kk differs), nor the reverse. */
#define JW_KK_TAG(klen, tag) (JW_KK(JW_K_NUM, klen) | (uint64_t)(tag) << 32)
static JW_INLINE int jw_num_raw_hit(struct jw *j, const char *key, uint64_t kk, double x)
{
    struct jw_ent *e = j->cur;
    uint64_t raw;
    memcpy(&raw, &x, sizeof raw);
    if (e >= j->end || e->kk != kk || e->key != key || e->raw != raw)
        return 0;
    assert(!key || jw_rec_key_is(j, e, key, strlen(key)));
    return jw_rec_take(j, e);
}
/* The call whose x was not the recorded one: v = f(x) is written (or its
 * recorded bytes taken when v is the recorded value) and the entry tagged.
 * dec: a count of decimals v is likely rounded to (1 to 9), a hint that
 * only speeds its printing up (json_write_number_dec); 0 when none. */
void jw_num_tagged(struct jw *j, const char *key, size_t klen, uint64_t kk, double x, double v, int dec);
/* A block: members written from the bytes [key, key + klen) alone (and
 * literals) by the code at one place, named by site (a string literal of
 * its own, compared by address like the calls' keys), one entry of a
 * recording. When the entry at the replay point is a block of that site
 * with the same key bytes, the members it would write are the recorded
 * bytes: they are taken and 1 returned, and the caller skips them; else
 * (0) the caller writes them and calls jw_block_end:
 *     if (!jw_block(j, "site", &key, sizeof key)) { ...calls...; jw_block_end(j); }
 * A memo hit's answer has runs of unchanged members (a tier's host, its
 * checkpoint, most of its rationale entries) that were checked call by
 * call; a block checks them with one comparison of the values they are
 * written from. Its calls are written without the recording (a changed
 * block is written whole, and kept as one entry with its key); key must
 * stay as it is until jw_block_end. A block writes at least one member and
 * closes what it opens. */
int jw_block_miss(struct jw *j, const char *site, const void *key, size_t klen);
void jw_block_end(struct jw *j);
static JW_INLINE int jw_block(struct jw *j, const char *site, const void *key, size_t klen)
{
    struct jw_ent *e = j->cur;
    if (e < j->end && e->kk == JW_KK(JW_K_BLOCK, klen) && e->key == site &&
        memcmp(j->ks + e->sat, key, klen) == 0) {
        j->taken += e->bits - 1;   /* the block's calls (bits: their count), for the statistics */
        return jw_rec_take(j, e);
    }
    return jw_block_miss(j, site, key, klen);
}
/* A block whose key is fixed bytes then a string (its text and NUL) held
 * in the rest of an array of cap bytes in all: [key, key + fixed) and the
 * string at key + fixed. Only the string's own bytes are compared, not the
 * whole array: the recorded key's length (slen, at most cap) is compared
 * in one piece, and equal bytes up to its NUL mean the same string. Its
 * entries are told from jw_block's by the flag in kk. */
#define JW_BLOCK_STR ((uint64_t)1 << 32)
int jw_block_miss_str(struct jw *j, const char *site, const void *key, size_t fixed, size_t cap);
static JW_INLINE int jw_block_str(struct jw *j, const char *site, const void *key, size_t fixed, size_t cap)
{
    struct jw_ent *e = j->cur;
    if (e < j->end && e->kk == (JW_KK(JW_K_BLOCK, fixed) | JW_BLOCK_STR) && e->key == site && e->slen <= cap &&
        memcmp(j->ks + e->sat, key, e->slen) == 0) {
        j->taken += e->bits - 1;
        return jw_rec_take(j, e);
    }
    return jw_block_miss_str(j, site, key, fixed, cap);
}
/* round(x) (halves away from zero, as libm's round) without the call: the
 * plan writers round ~250 values an answer. Below 2^52 the integer part
 * is exact in a long long and the fraction a - t is exact, so comparing
 * it with 0.5 decides as round does; the sign (and -0) is put back with
 * copysign. From 2^52 (and for NaN and infinities) x is its own round.
 * test_server_units checks it against round on random doubles. */
static inline double jw_round(double x)
{
    double a = __builtin_fabs(x), t;   /* (a mask, where x < 0 ? -x : x was a branch) */
    if (!(a < 0x1p52))
        return x;
    t = (double)(long long)a;
    if (a - t >= 0.5)
        t += 1.0;
    return __builtin_copysign(t, x);
}

/* x rounded to a multiple of a power of ten given as f (json_plan.c's
 * rnd_unit): f > 0 is 10^d, x rounded to d decimals as jw_round(x f) / f;
 * f < 0 is -10^k, x rounded to a multiple of 10^k as jw_round(x / 10^k) *
 * 10^k, so that 1045e5 is that double and not 1045 / 1e-5
 * (104499999.99999999: 1e-5 is not exact). */
static inline double jw_round_f(double x, double f)
{
    return f > 0 ? jw_round(x * f) / f : jw_round(x / -f) * -f;
}
/* floor(log10(a)) for a finite a > 0, as libm gives it, mostly without
 * the call (json_plan.c). */
int json_floor_log10(double a);
/* Members written elsewhere (text of the form "a":1,"b":[...], no leading
 * comma) put in at the current level, with the comma a member needs. */
void jw_raw_members(struct jw *j, const char *text, size_t len);
/* The text (heap, free()) and its length; NULL when writing failed or a
 * level was left open. */
char *jw_finish(struct jw *j, size_t *len);
/* A part of a document written again and again with mostly the same
 * values (json_write.c says how): jw_rec_begin(j, rec) .. jw_rec_end(j)
 * around the calls that write it. The text is the same as without; only
 * its cost changes. Keys inside a recorded part must be string literals
 * (compared by address). One recording at a time per writer; jw_rec_new
 * gives NULL when out of memory, jw_rec_free(NULL) is a no-op. */
struct jw_rec *jw_rec_new(void);
void jw_rec_free(struct jw_rec *r);
void jw_rec_begin(struct jw *j, struct jw_rec *r);
void jw_rec_end(struct jw *j);
/* Calls whose recorded text was taken, and calls written (tests). */
void jw_rec_stats(const struct jw_rec *r, unsigned long long *taken, unsigned long long *written);
/* Templates (json_write.c, "templates", says how): a part's last text
 * with the places of its holes, the values in it that change from one
 * writing to the next, each read from a place in a caller's struct (its
 * base). The caller keys the part by every other value it is written from
 * and compares that key with the template's (jw_tpl_key) before patching:
 *     if (!(key is jw_tpl_key(tpl) && jw_tpl_patch(j, tpl, base, fx))) {
 *         jw_key_reset(&key); ...the key written with jw_key_reserve...;
 *         size_t at = jw_tpl_begin(j, &key); ...the part's calls...;
 *         jw_tpl_store(j, tpl, at, base, sizeof *base);
 *     }
 * The part's holes are written with jw_hole_num and jw_hole_str; it must
 * not be in a recorded part (jw_rec) and write at least one member.
 * fx(fmt, x) is a number hole's value from its input x (the function of x
 * the part's call computed, named by fmt). jw_tpl_new gives NULL when out
 * of memory; jw_tpl_free(NULL) and jw_key_release(NULL) are no-ops. */
struct jw_hole {
    const char *src;   /* where the input lies: a double, or a char array of cap bytes */
    uint64_t x, v;     /* a number's input and value bits */
    double f;          /* a number rounded to digits: 10^digits (0: fx computes it) */
    double mul, lo, hi;   /* f applies to y = x * mul for lo <= |y| <= hi (jw_hole_num) */
    uint32_t cap, at, len;   /* the value's text in the writer's buffer: [at, at + len) */
    uint16_t fmt;
    int8_t dec;
    uint8_t kind;   /* JW_K_NUM or JW_K_STR */
};
struct jw_key {
    unsigned char *p;
    size_t n, cap;
    int bad;   /* memory ran out, or a hole could not be kept: no template */
    struct jw_hole *h;
    int nh, hcap;
    unsigned long long wrote0;   /* the writer's calls when the part began */
};
struct jw_tpl;
struct jw_tpl *jw_tpl_new(void);
void jw_tpl_free(struct jw_tpl *t);
void jw_key_release(struct jw_key *k);
void jw_key_reset(struct jw_key *k);
/* Room for n more bytes at k->p + k->n (the caller writes them there and
 * adds n to k->n); 0 (and k->bad) when there is none. */
int jw_key_reserve(struct jw_key *k, size_t n);
/* t's key (NULL when t holds no text), for the caller to compare. */
const unsigned char *jw_tpl_key(const struct jw_tpl *t, size_t *len);
int jw_tpl_patch(struct jw *j, struct jw_tpl *t, const void *base, double (*fx)(unsigned fmt, double x));
size_t jw_tpl_begin(struct jw *j, struct jw_key *k);
void jw_tpl_store(struct jw *j, struct jw_tpl *t, size_t at, const void *base, size_t base_len);
/* Holes: a number written as v = fx(fmt, x) (x the double at src) with
 * jw_num_tagged's dec; a string held in the char array src of cap bytes.
 * Outside a template's writing they write as jw_num_tagged (fmt 0: jw_num
 * of v) and jw_str_in. A number hole with f != 0 is, where y = x * mul
 * has lo <= |y| <= hi, y rounded with the factor f: v = jw_round_f(y, f)
 * (json_plan.c's rnd, and its sig within one decade of y), which the patch
 * computes in place of fx's call; elsewhere (NaN too) fx(fmt, x). */
void jw_hole_num(struct jw *j, const char *key, size_t klen, unsigned fmt, const double *src, double v, int dec,
                 double f, double mul, double lo, double hi);
void jw_hole_str(struct jw *j, const char *key, size_t klen, const char *src, size_t cap);
/* Members covered by patches and values written into holes (tests). */
void jw_tpl_stats(const struct jw_tpl *t, unsigned long long *taken, unsigned long long *written);
/* Plan answers written directly (json_plan.c); json_*_encode parse these. */
char *json_recommendation_text(const struct catalog *c, const struct engine_workload *w,
                               const struct engine_recommendation *r, size_t *len);
/* The same text, with the parts of each tier that come from its cluster
 * and layout (hardware members, expectations) taken from cache when they
 * were written before from the same values (json_plan.c says why). One
 * cache serves one thread at a time; cache may be NULL. */
struct json_plan_cache;
struct json_plan_cache *json_plan_cache_new(void);
void json_plan_cache_free(struct json_plan_cache *cache);
/* Texts taken from the cache and texts written into it (tests). */
void json_plan_cache_stats(const struct json_plan_cache *cache, unsigned long long *used, unsigned long long *written);
/* Writer calls whose text was copied from the answer before (recorded
 * parts, jw_rec) and calls written (tests). */
void json_plan_cache_replay_stats(const struct json_plan_cache *cache, unsigned long long *taken,
                                  unsigned long long *written);
char *json_recommendation_text_cached(const struct catalog *c, const struct engine_workload *w,
                                      const struct engine_recommendation *r, struct json_plan_cache *cache,
                                      size_t *len);
/* The same text with room free bytes in front of it in its allocation
 * (free(text - room)): the server writes the HTTP head there and sends
 * both in one write without copying the answer (http_send_room). */
char *json_recommendation_text_room(const struct catalog *c, const struct engine_workload *w,
                                    const struct engine_recommendation *r, struct json_plan_cache *cache,
                                    size_t room, size_t *len);
char *json_estimate_text(const struct engine_workload *w, const struct engine_plan *p, size_t *len);
enum status json_parse(const char *text, size_t len, struct cJSON **out, char *err, size_t errlen);
#ifdef cJSON__h
/* A small body's tree in nodes held by the caller (json_plan.c says how):
 * 1 with *out its root (nothing to free; it points into s), or 0 when the
 * body is not plain small JSON, which json_parse then reads as ever. */
#define JSON_SMALL_NODES 64
struct json_small {
    cJSON node[JSON_SMALL_NODES];
    char text[2048];
};
int json_parse_small(const char *text, size_t len, struct json_small *s, cJSON **out);
#endif
enum status json_workload_decode(const struct cJSON *o, struct engine_workload *w, char *field, size_t fieldlen,
                                 char *err, size_t errlen);
enum status json_estimate_decode(const struct cJSON *o, struct engine_estimate_request *r, char *field,
                                 size_t fieldlen, char *err, size_t errlen);
/* Splits the field name off an engine message "field: why". */
void json_field_from_error(const char *err, char *field, size_t fieldlen);
/* Encoders return a new tree; caller frees with cJSON_Delete. */
struct cJSON *json_recommendation_encode(const struct catalog *c, const struct engine_workload *w,
                                         const struct engine_recommendation *r);
struct cJSON *json_estimate_encode(const struct engine_workload *w, const struct engine_plan *p);
struct cJSON *json_catalog_encode(const struct catalog *c);

/* ---- planner commands and handlers (cli_plan.c, http_engine.c) ---- */
/* Loads the catalog from a private in-memory database migrated from the
 * embedded SQL. Caller frees *out with free(). */
enum status plan_catalog_open(struct catalog **out, char *err, size_t errlen);
int http_recommend(struct http_req *req);
/* Recommend's scratch memory (a recommendation and the writer's caches),
 * reused across requests, most recently released first. */
struct rec_pool;
struct thread_scratch;
/* At most max scratches (<= 0: four per online CPU; at most 64): a take
 * with none free waits for a give. */
struct rec_pool *rec_pool_new(int max);
void rec_pool_free(struct rec_pool *p);
/* A free scratch, a new one while fewer than max exist, else waits for one
 * behind the requests already waiting, first come first served (NULL only
 * when out of memory). p NULL: a new one each time. */
struct thread_scratch *rec_pool_take(struct rec_pool *p);
/* Back to the pool (freed when p is NULL). */
void rec_pool_give(struct rec_pool *p, struct thread_scratch *s);
/* Scratches taken now (requests in the planner) and requests waiting. */
void rec_pool_stats(struct rec_pool *p, int *taken, int *waiting);
int http_estimate(struct http_req *req);
int http_catalog(struct http_req *req);
int cli_parse(int argc, char **argv);   /* cli_report.c */
int cli_check(int argc, char **argv);

/* ---- reports (json_report.c, cli_report.c) ---- */
struct report;
struct report_verdict;
struct expectation;
/* {"sections": [...], "unrecognized_lines": N} per API.md; NULL when out of
 * memory. Caller frees with cJSON_Delete. */
struct cJSON *json_report_sections(const struct report *rep);
/* {"verdict", "findings", "no_evidence"}; NULL when out of memory. */
struct cJSON *json_report_verdict(const struct report_verdict *v);
/* The expectations of one tier of a saved plan, a recommendation or an
 * estimate (tier NULL: the saved plan's tier, else "recommended"). Writes at
 * most max entries to out, the count to *n, the tier's name to tier_out and
 * the tier object (borrowed from plan) to *tier_obj. */
enum status json_report_expectations(const struct cJSON *plan, const char *tier,
                                     struct expectation *out, size_t max, size_t *n,
                                     char *tier_out, size_t tier_len,
                                     const struct cJSON **tier_obj, char *err, size_t errlen);
/* Adds "measured" (busbw from the reports) to a verdict and, when the tier
 * carries time and cost, how they change at the measured figures. */
void json_report_calibration(struct cJSON *verdict, const struct report *rep,
                             const struct cJSON *plan, const struct cJSON *tier_obj,
                             const struct catalog *cat);
/* Judges rep against plan (NULL: only plan-free findings). *out_verdict is
 * a new verdict document; caller frees with cJSON_Delete. cat is the catalog
 * the calibration re-estimates with (the server's, loaded once); NULL opens a
 * private one (the command line). */
enum status report_judge(const struct report *rep, const struct cJSON *plan, const char *tier,
                         const struct catalog *cat, struct cJSON **out_verdict, char *err, size_t errlen);
/* Parse an uploaded report and judge it: the server's report upload and the
 * CLI share this. On ST_OK the caller owns *out_sections and *out_verdict
 * (cJSON_Delete). plan_or_null: a saved plan or recommendation document. */
enum status report_analyze(const char *text, size_t len, const struct cJSON *plan_or_null,
                           const char *tier, const struct catalog *cat, struct cJSON **out_sections,
                           struct cJSON **out_verdict, char *err, size_t errlen);

/* ---- the running server (cli_serve.c, http.c) ---- */
struct app {
    char db_path[4096];
    char web_dir[4096];
    size_t json_limit;    /* bytes; larger JSON bodies get 413 */
    size_t report_limit;  /* bytes; larger report uploads get 413 */
    int signup_open;      /* POST /api/v1/teams allowed without an invite */
    int secure_cookies;   /* add Secure to cookies (behind TLS) */
    int webhook_allow_private; /* webhooks may reach loopback/private/link-local addresses */
    int login_max_account;     /* failed sign-ins per account per window before 429 */
    int login_max_address;     /* failed sign-ins per client address per window before 429 */
    const struct catalog *catalog; /* loaded once at start, shared read-only */
    struct resp_cache *plan_cache; /* recommend/estimate answers by body (resp_cache.c) */
    struct search_memo *search_memo; /* recommend layout searches by workload less tokens (search_memo.c) */
    struct rec_pool *rec_pool;     /* recommend's reusable scratch (http_engine.c); NULL: one per request */
    struct mg_context *ctx;
    struct db_batcher *batcher;    /* group commit for report uploads; lives from http_start to http_stop */
    atomic_int workers_ready;      /* request workers set up (http.c: on_init_thread) */
};

/* ---- planner answer cache (resp_cache.c): bounded LRU, thread-safe ---- */
struct resp_cache;
struct resp_cache *resp_cache_new(void);
void resp_cache_free(struct resp_cache *c);
/* What an answer is kept under: the route and the request body itself, or
 * for a body over RESP_BODY_KEEP bytes its SHA-256; a 64-bit hash of those
 * picks the slots worth comparing. It borrows route and body (and points
 * into itself for a digest): fill it with resp_cache_key, do not copy it. */
#define RESP_BODY_KEEP 4096
struct resp_key {
    unsigned long long hash;
    const char *route;
    size_t route_len;
    const unsigned char *id;   /* the body, or sum */
    size_t id_len;
    int digest;                /* id is sum, the body's SHA-256 */
    unsigned char sum[32];
};
void resp_cache_key(const char *route, const char *body, size_t len, struct resp_key *key);
/* 1 and a heap copy of the body (caller frees with free()) on a hit; 0 on a miss. */
int resp_cache_get(struct resp_cache *c, const struct resp_key *key, char **body, size_t *len);
/* resp_cache_get with room free bytes in front of the copy in its
 * allocation (the caller frees *body - room): for http_send_room. */
int resp_cache_get_room(struct resp_cache *c, const struct resp_key *key, size_t room, char **body, size_t *len);
/* Keeps body (heap, from malloc) under key and takes it: the cache frees it
 * (at once when it is not kept). The caller must not touch it afterwards.
 * A body's answer is kept the second time it is put, not the first
 * (resp_cache.c: the doorkeeper). */
void resp_cache_put(struct resp_cache *c, const struct resp_key *key, char *body, size_t len);
/* resp_cache_put of a body that starts room bytes into its allocation
 * (body - room is what malloc gave: json_recommendation_text_room). */
void resp_cache_put_room(struct resp_cache *c, const struct resp_key *key, char *body, size_t len, size_t room);
void resp_cache_stats(struct resp_cache *c, unsigned long long *hits, unsigned long long *misses);
/* Answers put so far: kept, and declined by the doorkeeper. */
void resp_cache_admissions(struct resp_cache *c, unsigned long long *kept, unsigned long long *declined);

/* ---- layout-search memo: search_memo.h ---- */
struct search_memo;

/* One HTTP exchange as the handlers see it. */
struct http_req {
    struct mg_connection *conn;
    const struct mg_request_info *ri;
    struct app *app;
    const char *method;
    const char *path;          /* decoded path, no query */
    const char *route;         /* the matched route pattern, for metrics and logs */
    char params[4][128];       /* {name} captures of the route pattern, in order */
    int nparams;
    char *body;                /* after http_body(): NUL-terminated, body_len bytes */
    size_t body_len;
    struct thread_slot *thread; /* the worker's slot: its database and handler runner */
    int status;                /* status sent, 0 until a reply went out */
    long long bytes;           /* body bytes sent */
};

typedef int (*http_handler)(struct http_req *req);
struct http_route {
    const char *method;   /* "GET", "POST", ... */
    const char *pattern;  /* "/api/v1/plans/{id}": {x} matches one non-empty segment */
    http_handler fn;
};
extern const struct http_route http_routes[]; /* http_routes.c, ends with {0} */

/* Starts the upload committer (app->batcher) and civetweb on listen:port
 * (port 0 = ephemeral); writes the port bound to *port_out. */
enum status http_start(struct app *app, const char *listen, int port, int threads, int *port_out,
                       char *err, size_t errlen);
/* Stops accepting, finishes in-flight requests, closes the per-thread
 * databases, then stops the committer once its queue is empty. */
void http_stop(struct app *app);

/* The calling worker thread's database connection (opened on first use). NULL if it cannot open. */
struct db *http_db(struct http_req *req);
/* The calling worker thread's plan memo (http_reports.c fills it, http.c
 * frees it with plan_memo_free when the thread ends); NULL when the request
 * has no thread slot. */
struct plan_memo;
struct plan_memo **http_plan_memo(struct http_req *req);

/* Reads the request body up to limit bytes. Returns 1 when req->body holds it;
 * 0 when it already answered (413 over the limit, 400 unreadable). */
int http_body(struct http_req *req, size_t limit);
/* A request header, or NULL. */
const char *http_header(struct http_req *req, const char *name);
/* A query parameter copied into buf; returns buf, or NULL when absent. */
const char *http_query(struct http_req *req, const char *name, char *buf, size_t buflen);

/* Sends a reply with the security headers every response carries.
 * extra_headers: NULL or CRLF-terminated header lines. */
void http_send(struct http_req *req, int status, const char *content_type, const char *extra_headers,
               const void *body, size_t len);
/* Bytes an answer keeps free in front of its text for the HTTP head (the
 * head with the security headers is ~600 bytes). */
#define HTTP_HEAD_ROOM 1024
/* http_send of a body with room writable bytes in front of it (its own
 * allocation's): the head is written there and head and body leave in one
 * write, no copy of the body. The body's bytes are unchanged; the room's
 * are not kept. */
void http_send_room(struct http_req *req, int status, const char *content_type, const char *extra_headers,
                    char *body, size_t len, size_t room);
/* Sends doc as JSON and frees it (cJSON_Delete). A NULL doc is a 500. */
void http_json(struct http_req *req, int status, struct cJSON *doc);
/* Sends an RFC 9457 problem+json. field (or NULL) names the offending input. */
void http_problem(struct http_req *req, int status, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* A problem+json reply with extra header lines (Retry-After ...). */
void http_problem_headers(struct http_req *req, int status, const char *extra_headers, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Maps a status to an HTTP error reply with message. */
void http_problem_status(struct http_req *req, enum status st, const char *msg);

/* Built-in handlers (http_core.c). */
int http_healthz(struct http_req *req);
int http_readyz(struct http_req *req);
int http_static(struct http_req *req);

/* ---- report uploads (http_reports.c) ---- */
/* The report text of a multipart/form-data upload: every file part of body
 * joined. Returns 1 with *text (heap, NUL-terminated; caller frees with
 * free()) and *textlen; 0 when content_type names no boundary; -1 when the
 * body is malformed or holds no file part. Exposed for the fuzz target. */
int http_multipart_report(const char *content_type, const char *body, size_t len, char **text, size_t *textlen);
/* Frees a worker thread's plan memo; NULL is a no-op. */
void plan_memo_free(struct plan_memo *m);

/* ---- text building (sbuf.c) ---- */
struct sbuf {
    char *buf;     /* NUL-terminated once anything was added */
    size_t len, cap;
    int failed;    /* an allocation failed; the content is incomplete */
};
void sbuf_add(struct sbuf *b, const void *data, size_t n);
void sbuf_adds(struct sbuf *b, const char *s);
void sbuf_addf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sbuf_add_html(struct sbuf *b, const char *s); /* escaped for HTML text and attributes */
void sbuf_add_xml(struct sbuf *b, const char *s);  /* escaped for XML, control bytes dropped */
/* One CSV cell (RFC 4180 quoting); a cell starting with = + - @ tab or CR
 * is prefixed with ' so spreadsheets do not run it as a formula. */
void sbuf_add_csv(struct sbuf *b, const char *s);
/* Hands over the text (caller frees with free()); NULL when an allocation failed. Resets b. */
char *sbuf_detach(struct sbuf *b, size_t *len);
void sbuf_release(struct sbuf *b);

/* ---- crypto (crypto.c, the only mbedTLS user) ---- */
#define CRYPTO_PBKDF2_ITERATIONS 600000
#define CRYPTO_PASSWORD_HASH_MAX 160
/* Fills buf with n bytes from the process-wide CTR_DRBG. */
enum status crypto_random(void *buf, size_t n);
void crypto_sha256(const void *data, size_t len, unsigned char out[32]);
void crypto_sha256_hex(const void *data, size_t len, char out[65]);
void crypto_hmac_sha256(const void *key, size_t klen, const void *data, size_t len, unsigned char out[32]);
enum status crypto_pbkdf2_sha256(const char *pw, size_t pwlen, const unsigned char *salt, size_t saltlen,
                                 unsigned iterations, unsigned char *out, size_t outlen);
/* "pbkdf2-sha256$ITER$SALT$HASH" with a fresh 128-bit salt. */
enum status crypto_password_hash(const char *pw, unsigned iterations, char *out, size_t outlen);
/* 1 when pw matches the stored hash (constant-time comparison). */
int crypto_password_verify(const char *pw, const char *stored);
/* Costs what a verification costs, for unknown accounts. */
void crypto_password_burn(const char *pw);
/* Constant-time equality of n bytes / of two strings. */
int crypto_equal(const void *a, const void *b, size_t n);
int crypto_equal_str(const char *a, const char *b);
void crypto_wipe(void *p, size_t n);
void crypto_hex(const unsigned char *in, size_t n, char *out); /* out holds 2n+1 */
/* prefix followed by nbytes random bytes in hex. */
enum status crypto_token(const char *prefix, size_t nbytes, char *out, size_t outlen);

/* ---- JSON request helpers (http_json.c) ---- */
/* The body as a JSON object, or NULL after answering 400/413/415. Caller frees with cJSON_Delete. */
struct cJSON *http_body_json(struct http_req *req);
/* Answers 400 naming the first member of obj not in allowed (NULL-terminated); 1 when all are known. */
int http_fields_known(struct http_req *req, const struct cJSON *obj, const char *const *allowed);
/* A string member: 1 and *out (borrowed from obj) when present and 1..maxlen bytes; 0 when absent and
 * optional; -1 after answering 400. */
int http_field_string(struct http_req *req, const struct cJSON *obj, const char *name, int required,
                      size_t maxlen, const char **out);
/* An integer member within [lo, hi]: 1 / 0 / -1 as above. */
int http_field_long(struct http_req *req, const struct cJSON *obj, const char *name, int required, long lo,
                    long hi, long *out);
/* A path parameter as a positive id; 0 after answering 404. */
long long http_param_id(struct http_req *req, int index);
/* Sends doc with extra header lines (CRLF-terminated) and frees it. */
void http_json_with(struct http_req *req, int status, const char *extra_headers, struct cJSON *doc);
/* The tails every handler shares once its database call returned st (err: its message).
 * http_reply_error: 404 "no such <what>" for ST_NOTFOUND (what non-NULL), else as
 * http_problem_status. http_reply_list: doc as 200 when st is ST_OK, else frees doc and
 * answers the error. http_reply_deleted: 204 when st is ST_OK, else the error. */
void http_reply_error(struct http_req *req, enum status st, const char *what, const char *err);
void http_reply_list(struct http_req *req, struct cJSON *doc, enum status st, const char *what, const char *err);
void http_reply_deleted(struct http_req *req, enum status st, const char *what, const char *err);
/* A list page's "next": the last item's id as the cursor when more items
 * follow (more), else null. */
void http_list_next(struct cJSON *doc, int more, long long last_id);
/* The plan as the API shows it (id, title, revision, tier, workload,
 * recommendation, times), which is also what `gpuplan check --plan` reads.
 * NULL when the stored JSON cannot be read back; caller frees with cJSON_Delete. */
struct db_plan;
struct cJSON *http_plan_doc(const struct db_plan *p);
/* 1 when the team has the plan; 0 after answering 404 "no such plan" or the database error. */
int http_plan_owned(struct http_req *req, struct db *db, long long team_id, long long plan_id);
/* Adds a unix time as an RFC 3339 UTC string, or null when t is 0. */
void json_add_time(struct cJSON *obj, const char *name, long long t);

/* ---- authentication (http_auth.c) ---- */
enum auth_need {
    AUTH_MEMBER = 0,       /* a signed-in member (cookie session) */
    AUTH_OWNER = 1 << 0,   /* ... whose role is owner */
    AUTH_TOKEN_OK = 1 << 1 /* a team API token is accepted too */
};
struct auth {
    long long team_id, user_id, token_id; /* user_id 0 for a token, token_id 0 for a session */
    char role[8];                         /* owner | member | token */
    char email[255];
    char team_name[201];
    char csrf[65];                        /* the session's CSRF token ("" for a token) */
};
/* Authenticates the request: 1 when *out is filled and allowed; 0 after answering
 * 401 (no or bad credentials), 403 (missing CSRF header, wrong role). */
int http_auth(struct http_req *req, unsigned need, struct auth *out);
/* http_auth, then the first path parameter as an id: the start of every
 * handler of /things/{id}. 0 after answering 401/403/404. */
long long http_auth_id(struct http_req *req, unsigned need, struct auth *out);
/* The whole handler of DELETE /things/{id} for a row a team owns: http_auth_id,
 * then del(db, team, id), answered by http_reply_deleted (what names the row
 * in a 404). Returns 0 like every handler. */
typedef enum status (*http_team_row_delete_fn)(struct db *db, long long team_id, long long id, char *err,
                                              size_t errlen);
int http_delete_team_row(struct http_req *req, unsigned need, http_team_row_delete_fn del, const char *what);
/* Starts a session for user u: writes the Set-Cookie header line into cookie
 * and the CSRF token into csrf. */
enum status http_session_start(struct http_req *req, long long user_id, char *cookie, size_t cookielen,
                               char *csrf, size_t csrflen);
/* The SHA-256 hex of the request's session cookie; 0 when there is none. */
int http_session_hash(struct http_req *req, char hash[65]);
/* The client address as text, for rate limits. */
void http_client_addr(struct http_req *req, char *out, size_t outlen);

/* ---- metrics (metrics.c) ---- */
void metrics_request(const char *route, const char *method, int status, double ms);
void metrics_report(const char *verdict);
void metrics_db_error(void);
void metrics_webhook(const char *outcome); /* delivered | retry | failed */
/* The Prometheus text exposition; caller frees with free(). */
char *metrics_render(size_t *len);

/* ---- webhooks (webhook.c: the background sender) ---- */
/* Starts the delivery worker with its own database connection. */
enum status webhook_start(struct app *app, char *err, size_t errlen);
/* Stops the worker, waiting for an attempt in flight. */
void webhook_stop(void);
/* Wakes the worker: a delivery was queued. Never blocks. */
void webhook_notify(void);
/* Queues event for the team's webhooks inside the caller's transaction;
 * payload is the event's data object (borrowed). */
enum status webhook_enqueue(struct db *db, long long team_id, const char *event, const struct cJSON *data,
                            char *err, size_t errlen);

/* ---- network address classes (netaddr.c): the webhook SSRF guard ---- */
struct sockaddr;
enum addr_class {
    ADDR_PUBLIC,      /* anything not below: a webhook may reach it */
    ADDR_LOOPBACK,    /* 127.0.0.0/8, ::1 */
    ADDR_PRIVATE,     /* 10/8, 172.16/12, 192.168/16, 100.64/10, 198.18/15, fc00::/7, fec0::/10 */
    ADDR_LINK_LOCAL,  /* 169.254/16 (cloud metadata), fe80::/10 */
    ADDR_MULTICAST,   /* 224/4, ff00::/8 */
    ADDR_UNSPECIFIED, /* 0.0.0.0/8, :: */
    ADDR_RESERVED     /* documentation, 240/4, broadcast, other families */
};
/* The class of one address; IPv4-mapped, NAT64 and 6to4 IPv6 addresses are
 * judged by the IPv4 address they carry. */
enum addr_class addr_classify(const struct sockaddr *sa);
const char *addr_class_str(enum addr_class c); /* "loopback", "link-local", ... */
/* The address as text ("127.0.0.1", "::1"). */
void addr_text(const struct sockaddr *sa, char *out, size_t outlen);
/* 1 with *out when text is an IPv4 or IPv6 address literal, else 0. */
int addr_literal_class(const char *text, enum addr_class *out);
/* 1 with *out and the host text when url's host is an IP address literal;
 * 0 for a host name (judged at delivery on what it resolves to) or no host. */
int url_host_literal_class(const char *url, enum addr_class *out, char *host, size_t hostlen);

/* ---- HTTP client (client.c, the only libcurl user) ---- */
struct client_part {
    const char *name;       /* form field */
    const char *filename;   /* NULL for a plain field */
    const char *data;
    size_t len;
};
struct client_request {
    const char *method;             /* "GET", "POST" */
    const char *url;
    const char *const *headers;     /* NULL-terminated "Name: value" lines, or NULL */
    const char *body;               /* raw body, or NULL */
    size_t body_len;
    const struct client_part *parts; /* multipart/form-data parts, or NULL */
    int nparts;
    long timeout_s;
    /* Connect only to public addresses (addr_classify), checked on every
     * address libcurl connects to after DNS, so rebinding cannot slip past;
     * proxies are bypassed so the check sees the real destination. A refusal
     * is ST_FORBIDDEN with err naming the address and its class. */
    int public_only;
};
struct client_response {
    long status;                    /* 0 when no HTTP answer came back */
    char *body;                     /* heap, NUL-terminated; client_response_release frees */
    size_t len;
};
/* ST_OK when an HTTP answer came back (any status); ST_IO with err for network
 * failures; ST_FORBIDDEN when public_only refused every address. */
enum status client_send(const struct client_request *rq, struct client_response *out, char *err, size_t errlen);
void client_response_release(struct client_response *r);

int cli_submit(int argc, char **argv);

/* ---- JSON diff (json_diff.c) ---- */
/* Appends to changes one {"path", "from", "to"} per leaf that differs
 * between a and b (either may be NULL), at most max entries. */
void json_diff(const struct cJSON *a, const struct cJSON *b, struct cJSON *changes, int max);
/* The tier object named tier in a recommendation's "tiers", or NULL (borrowed). */
const struct cJSON *json_plan_tier(const struct cJSON *recommendation, const char *tier);

/* ---- REST handlers (http_*.c) ---- */
int http_metrics(struct http_req *req);
int http_openapi(struct http_req *req);
int http_team_create(struct http_req *req);
int http_team_get(struct http_req *req);
int http_member_delete(struct http_req *req);
int http_session_create(struct http_req *req);
int http_session_get(struct http_req *req);
int http_session_delete(struct http_req *req);
int http_invite_create(struct http_req *req);
int http_invite_list(struct http_req *req);
int http_invite_delete(struct http_req *req);
int http_invite_accept(struct http_req *req);
int http_token_create(struct http_req *req);
int http_token_list(struct http_req *req);
int http_token_delete(struct http_req *req);
int http_plan_create(struct http_req *req);
int http_plan_list(struct http_req *req);
int http_plan_get(struct http_req *req);
int http_plan_update(struct http_req *req);
int http_plan_delete(struct http_req *req);
int http_plan_tier(struct http_req *req);
int http_plan_revisions(struct http_req *req);
int http_plan_revision(struct http_req *req);
int http_plan_diff(struct http_req *req);
int http_report_create(struct http_req *req);
int http_report_list(struct http_req *req);
int http_report_get(struct http_req *req);
int http_report_recheck(struct http_req *req);
int http_share_create(struct http_req *req);
int http_share_list(struct http_req *req);
int http_share_delete(struct http_req *req);
int http_share_page(struct http_req *req);
int http_share_json(struct http_req *req);
int http_share_csv(struct http_req *req);
int http_webhook_create(struct http_req *req);
int http_webhook_list(struct http_req *req);
int http_webhook_delete(struct http_req *req);
int http_webhook_deliveries(struct http_req *req);

/* The OpenAPI document served at /openapi.json (openapi_data.c, generated from server/openapi.json). */
extern const char openapi_json[];
extern const unsigned long openapi_json_len;

#endif
