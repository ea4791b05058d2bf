/* json_diff.c: what changed between two JSON documents, as a flat list of
 * {"path", "from", "to"} entries (paths like "model.preset" or
 * "tiers[2].gpu.count"). Plans use it to show what a revision changed in
 * the workload and in the chosen tier; a flat list reads well in a UI and
 * in a terminal, and a missing side is simply absent. A member that is
 * null (a figure with no value: a tier that does not fit) and one that is
 * absent both say "no value", so that pair is no change; written, it was
 * an entry from null to null. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "server_int.h"

static void add_change(cJSON *changes, const char *path, const cJSON *a, const cJSON *b)
{
    cJSON *c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "path", path[0] ? path : ".");
    cJSON_AddItemToObject(c, "from", a ? cJSON_Duplicate(a, 1) : cJSON_CreateNull());
    cJSON_AddItemToObject(c, "to", b ? cJSON_Duplicate(b, 1) : cJSON_CreateNull());
    cJSON_AddItemToArray(changes, c);
}

static void diff_at(const cJSON *a, const cJSON *b, const char *path, cJSON *changes, int max)
{
    char sub[512];
    if (cJSON_GetArraySize(changes) >= max)
        return;
    if (a && b && cJSON_Compare(a, b, 1))
        return;
    if ((!a && cJSON_IsNull(b)) || (!b && cJSON_IsNull(a)))
        return;
    if (a && b && cJSON_IsObject(a) && cJSON_IsObject(b)) {
        const cJSON *it;
        cJSON_ArrayForEach(it, a)
        {
            snprintf(sub, sizeof sub, "%s%s%s", path, path[0] ? "." : "", it->string);
            diff_at(it, cJSON_GetObjectItemCaseSensitive(b, it->string), sub, changes, max);
        }
        cJSON_ArrayForEach(it, b)
        {
            if (cJSON_GetObjectItemCaseSensitive(a, it->string))
                continue;
            snprintf(sub, sizeof sub, "%s%s%s", path, path[0] ? "." : "", it->string);
            diff_at(NULL, it, sub, changes, max);
        }
        return;
    }
    if (a && b && cJSON_IsArray(a) && cJSON_IsArray(b)) {
        int na = cJSON_GetArraySize(a), nb = cJSON_GetArraySize(b);
        for (int i = 0; i < (na > nb ? na : nb); i++) {
            snprintf(sub, sizeof sub, "%s[%d]", path, i);
            diff_at(i < na ? cJSON_GetArrayItem(a, i) : NULL, i < nb ? cJSON_GetArrayItem(b, i) : NULL, sub,
                    changes, max);
        }
        return;
    }
    add_change(changes, path, a, b);
}

void json_diff(const cJSON *a, const cJSON *b, cJSON *changes, int max)
{
    diff_at(a, b, "", changes, max);
}

const cJSON *json_plan_tier(const cJSON *recommendation, const char *tier)
{
    const cJSON *tiers = cJSON_GetObjectItemCaseSensitive(recommendation, "tiers"), *it;
    cJSON_ArrayForEach(it, tiers)
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(it, "tier");
        if (cJSON_IsString(name) && strcmp(name->valuestring, tier) == 0)
            return it;
    }
    return NULL;
}
