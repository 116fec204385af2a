/**
 * The capability vocabulary a v1 backend understands — friendly names only
 * ("groups.list") — and the managed roles expressed in it, from the
 * emulator's own v1 facts (v1-capabilities.ts), never from the gateway's
 * tables. The public facts carry no descriptions for the managed roles; the
 * ones below are the emulator's decision (the same summaries the gateway's
 * native mode seeds, so both modes show the same roles).
 */
import { V1_CAPABILITIES, V1_MANAGED_ROLE_CAPABILITIES } from './v1-capabilities.ts';

export const V1_CAPABILITY_NAMES: ReadonlySet<string> = new Set(V1_CAPABILITIES);

export interface ManagedRole {
  name: string;
  description: string;
  capabilities: string[];
}

const DESCRIPTIONS: Record<keyof typeof V1_MANAGED_ROLE_CAPABILITIES, string> = {
  viewer: 'Read-only access, including pulling container images and APKs.',
  editor: 'Viewer access plus changes to repositories, overlays, event subscriptions and draft library requests; cannot manage IAM.',
  owner: 'Editor access plus IAM administration, artifact publishing, entitlements, policies and terms acceptance.',
};

export const MANAGED_ROLES: readonly ManagedRole[] = (['viewer', 'editor', 'owner'] as const).map((name) => ({
  name,
  description: DESCRIPTIONS[name],
  capabilities: [...V1_MANAGED_ROLE_CAPABILITIES[name]],
}));
