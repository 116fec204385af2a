/**
 * CheckAccountAssociation: does a group's association with a cloud provider
 * work? The real check is a live token exchange with the provider. Over v1 it
 * is `{group}:check` with v1's names (`accountType` → `providerType`, `ready`
 * → `status`, and v1's mixed-case `Ready`/`NotReady`). Native mode makes no
 * exchange, so it cannot confirm an association works: it answers NOT_READY,
 * saying whether the provider is configured at all and that it was not checked.
 */
import { invalidField } from '../../src/aip/errors.ts';
import type { CustomMethod } from '../../src/vocabulary/custom-method.ts';
import { uidpPath } from '../../src/uidp.ts';
import { v1String } from '../../src/v1/answer-fields.ts';
import { unreadable } from '../../src/v1/errors.ts';
import { ACCOUNT_PROVIDER_TYPE, CHECK_STATUS } from '../enums.ts';

/** The association's configuration key for each provider a check names. */
const PROVIDER_KEY: Readonly<Record<string, string>> = {
  ACCOUNT_PROVIDER_TYPE_GOOGLE: 'google',
  ACCOUNT_PROVIDER_TYPE_AMAZON: 'amazon',
  ACCOUNT_PROVIDER_TYPE_AZURE: 'azure',
};

export const checkAccountAssociation: CustomMethod = {
  async translate(request, v1) {
    const uid = String(request.uid);
    const accountType = ACCOUNT_PROVIDER_TYPE.v2ToV1[String(request.providerType)] ?? 'UNKNOWN';
    const answer = await v1.call({ method: 'POST', path: `/iam/v1/account_associations/${uidpPath(uid)}:check`, body: { accountType } });
    const ready = v1String(answer, 'ready') || 'UNKNOWN';
    const status = CHECK_STATUS.v1ToV2[ready];
    if (!status) throw unreadable(200, `\`ready\` is ${JSON.stringify(ready)}, not a state v1 declares`);
    return { status, reason: v1String(answer, 'reason'), message: v1String(answer, 'message') };
  },
  async native(request, store) {
    const association = await store.get('accountAssociations', String(request.uid));
    const key = PROVIDER_KEY[String(request.providerType)];
    // The runner has refused an unspecified provider (REQUIRED); a number no provider has is refused here.
    if (!key) throw invalidField('providerType', 'names no provider: GOOGLE, AMAZON or AZURE');
    if (!association[key]) {
      return { status: 'CHECK_STATUS_NOT_READY', reason: 'NOT_CONFIGURED', message: `the association has no ${key} configuration` };
    }
    return {
      status: 'CHECK_STATUS_NOT_READY',
      reason: 'NOT_CHECKED',
      message: `native mode makes no token exchange with ${key}, so it cannot confirm the association works`,
    };
  },
};
