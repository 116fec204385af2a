/**
 * BatchDeleteExternalGroupRoleMappings: delete named mappings of one identity
 * provider in one call. Names no longer there are skipped; a name under
 * another provider is INVALID_ARGUMENT (naming it), and then nothing is
 * deleted. The answer echoes the provider and lists what was deleted. Over v1
 * it is `:batchDelete` with v1's names (`parentId`, `ids`, `items`).
 */
import { invalidField } from '../../src/aip/errors.ts';
import type { CustomMethod } from '../../src/vocabulary/custom-method.ts';
import type { Json } from '../../src/vocabulary/json.ts';
import { isChildOf, isUidp } from '../../src/uidp.ts';
import { v1ListRows } from '../../src/v1/answer-fields.ts';

const KIND = 'externalGroupRoleMappings';

/** The request's provider and names, every name checked to be one of its mappings. */
function readRequest(request: Json): { parent: string; names: string[] } {
  const parent = String(request.parent);
  if (!isUidp(parent)) throw invalidField('parent', `"${parent}" is not a valid UIDP`);
  const names = request.names as string[];
  names.forEach((name, i) => {
    if (!isChildOf(name, parent)) throw invalidField(`names[${i}]`, `"${name}" is not a mapping of identity provider ${parent}`);
  });
  return { parent, names: [...new Set(names)] };
}

export const batchDeleteExternalGroupRoleMappings: CustomMethod = {
  touches: [KIND],
  async translate(request, v1) {
    const { parent, names } = readRequest(request);
    const answer = await v1.call({ method: 'POST', path: '/iam/v1/externalGroupRoleMappings:batchDelete', body: { parentId: parent, ids: names } });
    const deleted = v1ListRows(answer);
    for (const row of deleted) if (typeof row.id === 'string') v1.changed(KIND, row.id);
    return { parent, externalGroupRoleMappings: await Promise.all(deleted.map((row) => v1.render(KIND, row))) };
  },
  async native(request, access) {
    const { parent, names } = readRequest(request);
    const deleted: Json[] = [];
    await access.store.transaction(async ({ resources }) => {
      for (const name of names) {
        const row = await resources.getForUpdate(KIND, name);
        if (!row) continue;
        deleted.push({ ...row.body, uid: row.uid, identityProviderUid: parent, createTime: row.createTime });
        await resources.delete(KIND, name);
      }
    });
    return { parent, externalGroupRoleMappings: deleted };
  },
};
