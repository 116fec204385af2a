/**
 * TermsService: which legal documents an organisation has accepted
 * (AcceptTerms, ListTermsAcceptances). Over v1 it is `/iam/v1/terms/{group}`
 * with v1's names (`items`, `acceptedAt` → `createTime`); v1's rows do not say
 * which group accepted, so `orgUid` is the organisation (the root of the group
 * asked about), where terms are accepted. The list includes acceptances of
 * the group's ancestors; the runner pages it (a List-shaped custom method).
 * Native mode keeps acceptances in the store; it verifies no tokens, so it
 * cannot say who accepted: `acceptedBy` is empty there.
 */
import { invalidField } from '../../src/aip/errors.ts';
import { toMillisTimestamp } from '../../src/aip/time.ts';
import type { CustomMethod, NativeAccess } from '../../src/vocabulary/custom-method.ts';
import type { Json } from '../../src/vocabulary/json.ts';
import type { StoredResource } from '../../src/store/types.ts';
import { isUidp, newChildUid, selfAndAncestors } from '../../src/uidp.ts';
import { uidpPath } from '../../src/uidp.ts';
import { v1ListRows, v1String } from '../../src/v1/answer-fields.ts';
import { allRows } from './store-rows.ts';

/** The store's kind for acceptances: one row per (accepting group, document), a child of the group. */
const KIND = 'termsAcceptances';

function groupOf(request: Json): string {
  const group = String(request.group);
  if (!isUidp(group)) throw invalidField('group', `"${group}" is not a valid UIDP`);
  return group;
}

function documentIds(request: Json): string[] {
  const ids = request.documentIds as string[];
  ids.forEach((id, i) => {
    if (id.trim() === '') throw invalidField(`documentIds[${i}]`, 'must not be empty');
  });
  return [...new Set(ids)];
}

/**
 * An acceptance as it leaves, in either mode: its time with exactly
 * millisecond precision, as every time of the contract (v1 sends microseconds;
 * a row carried over from v1 may keep them).
 */
function acceptance(fields: { docId: string; acceptedBy: string; orgUid: string; createTime: unknown }): Json {
  return { ...fields, createTime: toMillisTimestamp(fields.createTime) };
}

/** Every acceptance row of the group and its ancestors. */
function acceptances(access: NativeAccess, group: string): Promise<StoredResource[]> {
  return allRows(access.store, KIND, [{ field: 'parent', op: 'in', value: selfAndAncestors(group) }]);
}

export const acceptTerms: CustomMethod = {
  touches: [KIND],
  async translate(request, v1) {
    const group = groupOf(request);
    const answer = await v1.call({ method: 'POST', path: `/iam/v1/terms/${uidpPath(group)}`, body: { documentIds: documentIds(request) } });
    return { group: v1String(answer, 'group') || group, documentIds: answer.documentIds ?? [] };
  },
  async native(request, access) {
    const group = groupOf(request);
    const ids = documentIds(request);
    await access.get('groups', group); // NOT_FOUND when the group is not there
    const already = new Set((await acceptances(access, group)).filter((row) => row.parent === group).map((row) => String(row.body.docId)));
    for (const docId of ids.filter((id) => !already.has(id))) {
      const now = access.now();
      const uid = newChildUid(group);
      // Accepting a document again keeps the first acceptance.
      await access.store.resources.insert({ kind: KIND, uid, parent: group, createTime: now, updateTime: now, body: { docId, acceptedBy: '', orgUid: group, createTime: now } });
    }
    return { group, documentIds: ids };
  },
};

export const listTermsAcceptances: CustomMethod = {
  touches: [KIND],
  list: {
    items: 'termsAcceptances',
    order: { fields: ['docId', 'createTime'], aliases: { created_at: 'createTime', doc_id: 'docId' }, default: 'createTime asc' },
    key: (row) => `${String(row.orgUid)}\0${String(row.docId)}`,
  },
  async translate(request, v1) {
    const group = groupOf(request);
    const answer = await v1.call({ method: 'GET', path: `/iam/v1/terms/${uidpPath(group)}` });
    const organisation = group.split('/')[0]!;
    return {
      termsAcceptances: v1ListRows(answer).map((row) => acceptance({
        docId: v1String(row, 'docId'), acceptedBy: v1String(row, 'acceptedBy'), orgUid: organisation, createTime: v1String(row, 'acceptedAt'),
      })),
    };
  },
  async native(request, access) {
    const group = groupOf(request);
    await access.get('groups', group);
    return {
      termsAcceptances: (await acceptances(access, group)).map(({ body }) => acceptance({
        docId: String(body.docId), acceptedBy: String(body.acceptedBy ?? ''), orgUid: String(body.orgUid), createTime: body.createTime,
      })),
    };
  },
};
