/**
 * Equivalence (test/support/equivalence.ts) for advisories and the public
 * advisory feed: v1's data, which native mode serves from the rows the import
 * copies of it.
 */
import { beforeAll, expect, it } from 'vitest';
import { describeEquivalence, itReadsAlike, type Ids } from '../../support/equivalence.ts';

const UNIMPLEMENTED = 12;

describeEquivalence('vulnerabilities', (eq) => {
  const ids: Ids = {};
  const rest = () => eq.rest();

  beforeAll(async () => {
    ids.org = await eq.made('/iam/v2beta1/groups', { name: 'equivalence' });
    ids.advisory = await eq.stack().fixtures.advisory(ids.org, {
      author: 'alice', artifactType: 'apk', artifactName: 'eq-artifact', artifactArchitecture: 'x86_64',
      componentName: 'c', componentType: 'go-module', componentLocation: '/x', aliases: ['CVE-2026-1'],
      events: [{ author: 'bob', reviewState: 'REVIEW_STATE_APPROVED', fixed: { fixedVersion: '1.2.3' } }],
    });
    // The feed is v1's own data, which no v2 call writes.
    // An event of each kind the mapping renames (the false-positive type) and passes as is.
    const events = [
      { timestamp: '2026-02-01T00:00:00Z', falsePositiveDetermination: { type: 'FPT_TYPE_COMPONENT_VULNERABILITY_MISMATCH', note: 'not this one' } },
      { timestamp: '2026-02-02T00:00:00Z', fixed: { fixedVersion: '1.3.1' } },
    ];
    await eq.stack().fixtures.feed({
      documents: [{ id: 'zlib', advisories: [{ id: 'CGA-eq00-eq00-eq00', aliases: ['CVE-2026-0001'], packageNamespace: 'wolfi', events }] }],
      metadata: ['CVE-2026-0001', 'CVE-2026-0002', 'CVE-2026-0003'].map((id) => (
        { id, summary: id, details: 'd', references: [{ type: 'ADVISORY', url: `https://example.com/${id}` }], severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N' }] }
      )),
    });
  });

  itReadsAlike(eq, ids, [
    ['AdvisoriesService', 'GetAdvisory', 'ListAdvisories', '/vulnerabilities/v2beta1/advisories', 'advisory'],
  ]);

  it('ListDocuments and ListVulnerabilityMetadata (the feed)', async () => {
    const documents = await eq.same<{ documents: unknown[] }>('SecurityAdvisoryService.ListDocuments', { cves: ['CVE-2026-0001'] },
      () => rest().get('/advisory/v2beta1/documents', { cves: 'CVE-2026-0001' }));
    expect(documents.documents).toHaveLength(1);
    const first = await eq.same<{ nextPageToken: string }>('SecurityAdvisoryService.ListVulnerabilityMetadata', { pageSize: 2 },
      () => rest().get('/advisory/v2beta1/metadata', { page_size: 2 }));
    // The second page, from the token gRPC handed out: a sealed token both transports open alike.
    const token = first.nextPageToken;
    expect(token).not.toBe('');
    await eq.same('SecurityAdvisoryService.ListVulnerabilityMetadata', { pageSize: 2, pageToken: token },
      () => rest().get('/advisory/v2beta1/metadata', { page_size: 2, page_token: token }));
  });

  it('ListResolvedVulnsReports is UNIMPLEMENTED alike in both modes, saying why', async () => {
    await eq.sameError('SecurityAdvisoryService.ListResolvedVulnsReports', {}, UNIMPLEMENTED, () => rest().get('/advisory/v2beta1/images/resolvedVulns'));
  });
});
