/**
 * The RPCs of the contract the gateway does not serve yet, each with the reason
 * its UNIMPLEMENTED answer gives and the README's "Every RPC" table shows.
 * `test/contract/served.test.ts` fails when an RPC of the protos is neither
 * served nor listed here, and when one listed here is served after all.
 */
const iam = 'chainguard.platform.iam.v2beta1';

export const UNSERVED: Readonly<Record<string, string>> = {
  // It writes the caller's own identity, named only by the caller's token.
  [`${iam}.IdentitiesService.UpdateIdentityMetadata`]:
    "v1 has no identity metadata, and native mode verifies no tokens, so it cannot tell whose identity the caller's own is",
};
