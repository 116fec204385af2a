/**
 * Tags (api-surface.md §9): children of a Repo (not of a group), named
 * uniquely within it ("the unique name of the Tag", registry.platform.proto).
 */
import { newChildUid, parentOf } from '../uidp.ts';
import { alreadyExists, invalidArgument, notFound } from '../errors.ts';
import { select, type ListFilter } from '../query.ts';
import { existing, NameIndex, Rows, store } from '../records.ts';
import { compareTimestamps } from '../time.ts';

export interface TagFields {
  name: string;
  digest: string;
  deprecated?: boolean;
  bundles?: string[];
  /** Server-stamped; a client's value is ignored. */
  lastUpdated?: string;
}

export interface V1Tag {
  id: string;
  name: string;
  digest: string;
  lastUpdated: string;
  deprecated: boolean;
  bundles: string[];
}

export interface TagFilter extends ListFilter {
  updatedSince?: string;
  excludeReferrers?: boolean;
  excludeDates?: boolean;
  excludeEpochs?: boolean;
  digest?: string;
}

// The TagFilter comments name three shapes of tag. Decision: each is read
// literally as a glob over the whole name — "sha256-*" a prefix, "*-20yymmdd"
// the six digits after "-20" at the very end (no calendar check), and
// "*-r[0-9]+" an epoch suffix at the very end ("1.2.3-r4", not "1.2.3-r4-dev").
const REFERRER = /^sha256-/;
const DATED = /-20\d{6}$/;
const EPOCH = /-r\d+$/;

// Decision: what a registry can store — the OCI distribution-spec grammars for tags and digests.
const TAG_NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;
const DIGEST = /^[a-z0-9]+(?:[+._-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/;

function matchesTag(tag: V1Tag, f: TagFilter): boolean {
  if (f.digest && tag.digest !== f.digest) return false;
  // "The timestamp after which returned records were updated": strictly after.
  if (f.updatedSince && compareTimestamps(tag.lastUpdated, f.updatedSince) <= 0) return false;
  if (f.excludeReferrers && REFERRER.test(tag.name)) return false;
  if (f.excludeDates && DATED.test(tag.name)) return false;
  if (f.excludeEpochs && EPOCH.test(tag.name)) return false;
  return true;
}

export class TagStore extends Rows<V1Tag> {
  readonly #names = new NameIndex();
  #fields(fields: TagFields): Omit<V1Tag, 'id'> {
    if (typeof fields.name !== 'string' || !TAG_NAME.test(fields.name)) throw invalidArgument('tag.name: must be a valid OCI tag');
    if (typeof fields.digest !== 'string' || !DIGEST.test(fields.digest)) throw invalidArgument('tag.digest: must be an OCI digest such as sha256:<hex>');
    // Decision: lastUpdated is the server's write time; a client's value is ignored.
    return { name: fields.name, digest: fields.digest, lastUpdated: this.ctx.now(), deprecated: fields.deprecated ?? false, bundles: [...(fields.bundles ?? [])] };
  }

  #store(tag: V1Tag): V1Tag {
    this.#names.set(tag, this.rows.get(tag.id));
    return store(this.rows, tag);
  }

  /**
   * Decision: creating a tag whose name the repo already has replaces that
   * tag (same id), the way a registry push moves a tag; v2 documents its
   * CreateTag as "creates (or updates)".
   */
  create(repo: string, fields: TagFields): V1Tag {
    if (repo === '') throw invalidArgument('repo_id: must be the UIDP of a repo');
    if (!this.ctx.repoExists(repo)) throw notFound(`repo ${JSON.stringify(repo)} not found`);
    const values = this.#fields(fields);
    return this.#store({ id: this.#names.get(repo, values.name) ?? newChildUid(repo), ...values });
  }

  /** Decision: renaming onto another tag's name in the same repo is ALREADY_EXISTS. */
  update(id: string, fields: TagFields): V1Tag {
    existing(this.rows, id, 'tag');
    const values = this.#fields(fields);
    const clash = this.#names.get(parentOf(id), values.name);
    if (clash !== undefined && clash !== id) throw alreadyExists(`tag ${JSON.stringify(values.name)} already exists`);
    return this.#store({ id, ...values });
  }

  list(filter: TagFilter = {}): V1Tag[] {
    return select(this.rows, filter).filter((tag) => matchesTag(tag, filter));
  }

  delete(id: string): void {
    this.#names.delete(this.remove(id, 'tag'));
  }
}
