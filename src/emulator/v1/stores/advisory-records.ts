/**
 * Advisories and their events as v1 shows them (api-surface.md §10), apart from the store that keeps
 * them, so the List (advisory-list.ts) reads them without importing the store that imports it.
 */
import type { EVENT_TYPES } from '../vulnerability-messages.ts';

/** The `type` oneof members, by JSON name; their bodies are the decoded sub-messages. */
export type EventKind = keyof typeof EVENT_TYPES;
export type EventBodies = { [K in EventKind]?: Record<string, unknown> };

export interface V1AdvisoryEvent extends EventBodies {
  id: string;
  timestamp: string;
  findings: string;
  author: string;
  reviewer: string;
  status: string;
  issue?: string;
}

/** An advisory as stored: everything but its events. */
export interface StoredAdvisory {
  id: string;
  artifactType: string;
  artifactName: string;
  artifactArchitecture: string;
  componentName?: string;
  componentLocation?: string;
  componentType?: string;
  createdAt: string;
  updatedAt: string;
  deletedAt?: string;
  aliases: string[];
  advisoryId: string;
  author: string;
  legacyAdvisoryID?: string;
}

export interface V1Advisory extends StoredAdvisory {
  events: V1AdvisoryEvent[];
}
