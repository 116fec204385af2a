/**
 * SecurityAdvisoryService (advisory v2beta1): the public advisory feed, over
 * v1's `/advisory/v1/…` (api-surface.md §10, "Companion: SecurityAdvisory").
 * The shapes are v1's with enum names behind a `TYPE_` prefix (v1's
 * false-positive types carry `FPT_`), `severity` → `severities`, and the list
 * key → the plural. v1 has no `UBUNTU` twin in v2: such a severity shows as
 * TYPE_UNSPECIFIED with its score, as any unknown value does. The renames are
 * field specs laid over the contract's messages, rendered by the engine.
 *
 * ListVulnerabilityMetadata pages in v1 itself: the gateway hands v1's token
 * to the client sealed inside its own (bound to the request), never as is.
 * ListResolvedVulnsReports is not served: its one selector, `image_refs`, is a
 * repeated message, which v1's REST route cannot read from a query string.
 * Native mode keeps no feed: the data is v1's.
 */
import { contractFields, withContract } from '../../src/contract/fields.ts';
import { contract } from '../../src/contract/registry.ts';
import type { CustomMethod } from '../../src/vocabulary/custom-method.ts';
import { enumRename, prefixedEnum, type FieldSpec } from '../../src/vocabulary/resource.ts';
import { renderV2 } from '../../src/engine/v1-row.ts';
import type { Json } from '../../src/vocabulary/json.ts';
import { v1Int64, v1ListRows, v1String } from '../../src/v1/errors.ts';

const NATIVE = 'the advisory feed is v1\'s public data; native mode keeps none';
const PACKAGE = 'chainguard.platform.advisory.v2beta1';

const REFERENCE_TYPE = prefixedEnum('TYPE_', ['UNSPECIFIED', 'ADVISORY', 'ARTICLE', 'DETECTION', 'DISCUSSION', 'REPORT', 'FIX', 'INTRODUCED', 'PACKAGE', 'EVIDENCE', 'WEB'], ['UNSPECIFIED', 'TYPE_UNSPECIFIED']);
const SEVERITY_TYPE = prefixedEnum('TYPE_', ['UNSPECIFIED', 'CVSS_V2', 'CVSS_V3', 'CVSS_V4'], ['UNSPECIFIED', 'TYPE_UNSPECIFIED']);
const FALSE_POSITIVE_TYPE = enumRename(
  ['UNSPECIFIED', 'VULNERABILITY_RECORD_ANALYSIS_CONTESTED', 'COMPONENT_VULNERABILITY_MISMATCH', 'VULNERABLE_CODE_VERSION_NOT_USED',
    'VULNERABLE_CODE_NOT_INCLUDED_IN_PACKAGE', 'VULNERABLE_CODE_NOT_IN_EXECUTION_PATH', 'VULNERABLE_CODE_CANNOT_BE_CONTROLLED_BY_ADVERSARY',
    'INLINE_MITIGATIONS_EXIST'].map((name) => [`FPT_TYPE_${name}`, `TYPE_${name}`] as const),
  'TYPE_UNSPECIFIED',
);

/** A message of the feed as the contract declares it, with v1's differences laid over it. */
function fieldsOf(message: string, declared: Readonly<Record<string, FieldSpec>>): Readonly<Record<string, FieldSpec>> {
  return withContract(contractFields(contract.getMessage(`${PACKAGE}.${message}`)!), declared, message);
}

const DOCUMENT = fieldsOf('Document', {
  advisories: { fields: { events: { fields: { falsePositiveDetermination: { fields: { type: { enum: FALSE_POSITIVE_TYPE } } } } } } },
});
const METADATA = fieldsOf('VulnerabilityMetadata', {
  references: { fields: { type: { enum: REFERENCE_TYPE } } },
  severities: { v1: 'severity', fields: { type: { enum: SEVERITY_TYPE } } },
});

export const listDocuments: CustomMethod = {
  async translate(request, v1) {
    const answer = await v1.call({ method: 'GET', path: '/advisory/v1/documents', query: { id: request.id as string | undefined, cves: request.cves as string[] | undefined } });
    return { documents: v1ListRows(answer).map((row) => renderV2(DOCUMENT, row as Json)) };
  },
  unserved: { native: NATIVE },
};

export const listVulnerabilityMetadata: CustomMethod = {
  async translate(request, v1) {
    const v1Token = v1.pages.cursor?.after[0];
    const answer = await v1.call({
      method: 'GET',
      path: '/advisory/v1/metadata',
      query: {
        id: request.id as string | undefined,
        ids: request.ids as string[] | undefined,
        pageSize: request.pageSize === undefined ? undefined : String(Math.min(Number(request.pageSize), 200)),
        orderBy: request.orderBy as string | undefined,
        skip: request.skip === undefined ? undefined : String(request.skip),
        pageToken: typeof v1Token === 'string' ? v1Token : undefined,
      },
    });
    const next = v1String(answer, 'nextPageToken');
    const skipped = Number(answer.skipped ?? 0);
    return {
      vulnerabilityMetadata: v1ListRows(answer).map((row) => renderV2(METADATA, row as Json)),
      nextPageToken: next ? v1.pages.seal({ after: [next], skipped }) : '',
      totalCount: v1Int64(answer, 'totalCount'),
      skipped,
    };
  },
  unserved: { native: NATIVE },
};

export const listResolvedVulnsReports: CustomMethod = {
  unserved: {
    translate: 'v1\'s REST route cannot take image_refs (a repeated message cannot be set from a query string), and the gateway speaks REST to v1',
    native: NATIVE,
  },
};
