/**
 * SecurityAdvisoryService over REST and gRPC: the public feed from v1, renamed
 * to v2 (`TYPE_` enums, `severity` → `severities`), with v1's own page tokens
 * sealed inside the gateway's; ListResolvedVulnsReports answers UNIMPLEMENTED
 * with its reason in both modes. (Native mode's feed, from the rows the import
 * copies, is held to translate mode's in test/v2/native-copies.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrpcClient, rejected } from '../../support/grpc.ts';
import { startMode, type ModeStack } from '../../support/modes.ts';
import { aip, startStack, type Stack } from '../../support/stack.ts';

const FEED = 'chainguard.platform.advisory.v2beta1.SecurityAdvisoryService';

describe('the advisory feed over v1', () => {
  let stack: Stack;
  let grpc: GrpcClient;
  beforeAll(async () => {
    stack = await startStack();
    grpc = new GrpcClient(stack.url);
    const feed = stack.emulator.state.advisoryFeed;
    feed.addDocument({
      id: 'openssl',
      advisories: [{
        id: 'CGA-aaaa-bbbb-cccc', aliases: ['CVE-2026-0001'], packageNamespace: 'wolfi',
        events: [
          { timestamp: '2026-01-02T03:04:05Z', falsePositiveDetermination: { type: 'FPT_TYPE_VULNERABLE_CODE_NOT_IN_EXECUTION_PATH', note: 'n' } },
          { timestamp: '2026-01-03T03:04:05Z', fixed: { fixedVersion: '3.0.1' } },
        ],
      }],
    });
    feed.addDocument({ id: 'curl', advisories: [{ id: 'CGA-dddd-eeee-ffff', aliases: ['CVE-2026-0002'], packageNamespace: 'wolfi', events: [] }] });
    for (let i = 0; i < 5; i++) {
      feed.addMetadata({
        id: `CVE-2026-000${i}`, summary: `s${i}`, details: 'd',
        references: [{ type: 'ADVISORY', url: `https://example.com/${i}` }],
        severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N' }, { type: 'UBUNTU', score: 'medium' }],
      });
    }
  });
  afterAll(async () => {
    grpc.close();
    await stack.close();
  });

  it('lists documents, renaming the false-positive type, filtered by CVE', async () => {
    const all = await stack.client.get('/advisory/v2beta1/documents');
    expect(all.status).toBe(200);
    expect(all.body.documents.map((d: any) => d.id).sort()).toEqual(['curl', 'openssl']);
    const byCve = await grpc.call(FEED, 'ListDocuments', { cves: ['CVE-2026-0001'] });
    expect(byCve.documents).toHaveLength(1);
    const events = byCve.documents[0].advisories[0].events;
    expect(events[0].falsePositiveDetermination.type).toBe('TYPE_VULNERABLE_CODE_NOT_IN_EXECUTION_PATH');
    expect(events[1].fixed.fixedVersion).toBe('3.0.1');
  });

  it('lists vulnerability metadata in v1\'s pages, renamed, with v1\'s token sealed in the gateway\'s', async () => {
    const first = await stack.client.get('/advisory/v2beta1/metadata', { page_size: 2 });
    expect(first.status).toBe(200);
    expect(first.body.vulnerabilityMetadata.map((m: any) => m.id)).toEqual(['CVE-2026-0000', 'CVE-2026-0001']);
    expect(first.body.totalCount).toBe('5');
    expect(first.body.vulnerabilityMetadata[0].references[0].type).toBe('TYPE_ADVISORY');
    expect(first.body.vulnerabilityMetadata[0].severities).toEqual([{ type: 'TYPE_CVSS_V3', score: 'CVSS:3.1/AV:N' }, { type: 'TYPE_UNSPECIFIED', score: 'medium' }]);
    // Not v1's token: the gateway's sealed one, which v1 would not read.
    expect(Buffer.from(first.body.nextPageToken, 'base64url').toString()).not.toContain('offset');
    const second = await grpc.call(FEED, 'ListVulnerabilityMetadata', { pageSize: 2, pageToken: first.body.nextPageToken });
    expect(second.vulnerabilityMetadata.map((m: any) => m.id)).toEqual(['CVE-2026-0002', 'CVE-2026-0003']);
    const forged = await stack.client.get('/advisory/v2beta1/metadata', { page_size: 2, page_token: `${first.body.nextPageToken.slice(0, -4)}AAAA` });
    expect(forged.status).toBe(400);
    const replayed = await stack.client.get('/advisory/v2beta1/metadata', { page_size: 2, id: 'CVE-2026-0004', page_token: first.body.nextPageToken });
    expect(aip(replayed).byType.BadRequest.fieldViolations[0].field).toBe('page_token');
  });

  it('does not serve ListResolvedVulnsReports, saying why', async () => {
    const rest = await stack.client.get('/advisory/v2beta1/images/resolvedVulns');
    expect(rest.status).toBe(501);
    expect(aip(rest).message).toContain('image_refs');
  });
});

describe('the advisory feed in native mode', () => {
  let native: ModeStack;
  beforeAll(async () => {
    native = await startMode('native');
  });
  afterAll(async () => native?.close());

  it('answers an empty feed before the import copied any, and ListResolvedVulnsReports UNIMPLEMENTED, saying why', async () => {
    const grpc = new GrpcClient(native.url);
    try {
      expect(await grpc.call(FEED, 'ListDocuments', {})).toEqual({ documents: [] });
      expect(await grpc.call(FEED, 'ListVulnerabilityMetadata', {})).toMatchObject({ vulnerabilityMetadata: [], nextPageToken: '', totalCount: '0', skipped: 0 });
      const failure = await rejected(grpc.call(FEED, 'ListResolvedVulnsReports', {}));
      expect(failure.code).toBe(12);
      expect(failure.message).toContain('native mode keeps no resolved-vulnerability reports');
    } finally {
      grpc.close();
    }
  });
});
