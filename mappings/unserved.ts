/**
 * The RPCs of the contract the gateway does not serve yet, each with the reason
 * its UNIMPLEMENTED answer gives and the README's "Every RPC" table shows.
 * `test/contract/served.test.ts` fails when an RPC of the protos is neither
 * served nor listed here, and when one listed here is served after all.
 */
const PASS_THROUGH = 'meanwhile its v1 route is reachable unchanged through the v1 pass-through';
const CUSTOM_VERB = 'a custom verb the gateway has no declared method for yet';

const iam = 'chainguard.platform.iam.v2beta1';

export const UNSERVED: Readonly<Record<string, string>> = {
  [`${iam}.IdentitiesService.UpdateIdentityMetadata`]: `${CUSTOM_VERB}, and v1 has no equivalent (it will be native only)`,
  [`${iam}.IdentityProvidersService.GenerateScimToken`]: `${CUSTOM_VERB}; ${PASS_THROUGH}`,
  [`${iam}.IdentityProvidersService.RegenerateScimToken`]: `${CUSTOM_VERB}; ${PASS_THROUGH}`,
  [`${iam}.IdentityProvidersService.RevokeScimToken`]: `${CUSTOM_VERB}; ${PASS_THROUGH}`,
  [`${iam}.IdentityProvidersService.SetScimEnabled`]: `${CUSTOM_VERB}; ${PASS_THROUGH}`,
};
