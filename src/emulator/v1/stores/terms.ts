/**
 * `chainguard.platform.iam.Terms` (v1): which legal documents an
 * organisation has accepted, and v1's refusal when it lacks one it must
 * accept (FAILED_PRECONDITION with TermsNotAcceptedDetail; api-surface.md §0.6).
 *
 * Decisions where the facts are silent: an acceptance is kept per (group,
 * document) — accepting again keeps the first; ListAccepted answers the
 * group's own acceptances and its ancestors' (v2 documents "includes ancestor
 * organization acceptances"); which documents an organisation must accept is
 * the emulator's option `requiredTerms` (none by default), checked when a repo
 * is created in the organisation, the operation a customer meets it on.
 */
import { isDescendantOf } from '../uidp.ts';
import { invalidArgument, termsNotAccepted, type MissingDocument } from '../errors.ts';

export interface V1TermsDocumentStatus {
  docId: string;
  acceptedBy: string;
  acceptedAt: string;
}

/** Labels and links of the documents v1 knows (api-surface.md §0.6); an unknown id is shown by its id alone. */
const KNOWN: Readonly<Record<string, Omit<MissingDocument, 'id'>>> = {
  'guardener-tos.v1': { label: 'Guardener Terms of Service', url: 'https://www.chainguard.dev/legal/guardener-tos' },
  'sfdpa.v1': { label: 'Data Processing Addendum', url: 'https://www.chainguard.dev/legal/dpa' },
  'skills-tos.v1': { label: 'Skills Terms of Service', url: 'https://www.chainguard.dev/legal/skills-tos' },
};

export class TermsStore {
  /** `<group>\0<docId>` → the acceptance. */
  readonly #accepted = new Map<string, V1TermsDocumentStatus & { group: string }>();
  readonly #required: readonly string[];
  readonly #now: () => string;

  constructor(required: readonly string[], now: () => string) {
    this.#required = required;
    this.#now = now;
  }

  accept(group: string, documentIds: readonly string[], acceptedBy: string): string[] {
    if (documentIds.length === 0) throw invalidArgument('document_ids: at least one document is required');
    if (documentIds.some((id) => id.trim() === '')) throw invalidArgument('document_ids: an id must not be empty');
    for (const docId of documentIds) {
      const key = `${group}\0${docId}`;
      if (!this.#accepted.has(key)) this.#accepted.set(key, { group, docId, acceptedBy, acceptedAt: this.#now() });
    }
    return [...documentIds];
  }

  /** The group's acceptances and those of its ancestors. */
  accepted(group: string): V1TermsDocumentStatus[] {
    return [...this.#accepted.values()]
      .filter((a) => a.group === group || isDescendantOf(group, a.group))
      .map(({ docId, acceptedBy, acceptedAt }) => ({ docId, acceptedBy, acceptedAt }));
  }

  /** FAILED_PRECONDITION with the documents `group` still has to accept, if any. */
  requireAccepted(group: string): void {
    const have = new Set(this.accepted(group).map((a) => a.docId));
    const missing = this.#required.filter((id) => !have.has(id));
    if (missing.length > 0) throw termsNotAccepted(missing.map((id) => ({ id, label: KNOWN[id]?.label ?? '', url: KNOWN[id]?.url ?? '' })));
  }
}
