/**
 * `/registry/v1/repos/{repo_id=**}/digests/{digest=*}/architectures` and
 * `…/size` (Registry.GetArchs and Registry.GetSize): what v1 knows of an
 * image by its index digest.
 *
 * Decisions where the facts are silent (this emulator holds no manifests):
 * a digest is known when one of the repo's tags points at it; every known
 * image is a two-platform index (amd64, arm64); an image's size for an
 * architecture is a stable number derived from the digest and the
 * architecture. An empty `arch` is amd64, the default v2 documents. An unknown
 * repo, digest or architecture is NOT_FOUND.
 */
import { createHash } from 'node:crypto';
import { notFound } from '../errors.ts';
import { ARCHS, SIZE, SIZE_REQUEST } from '../messages.ts';
import { decodeQuery, renderMessage, type Message } from '../protojson.ts';
import type { Route } from '../router.ts';
import type { EmulatorState } from '../state.ts';
import { as } from './collection.ts';

const PLATFORMS = ['amd64', 'arm64'];

export function imageRoutes(state: EmulatorState): Route[] {
  const image = (request: Message): { repo: string; digest: string } => {
    const { repoId = '', digest = '' } = as<{ repoId?: string; digest?: string }>(request);
    if (state.listRepos({ id: repoId }).length === 0) throw notFound(`repo ${JSON.stringify(repoId)} not found`);
    const known = state.listTags({ uidp: { childrenOf: repoId } }).some((tag) => tag.digest === digest);
    if (!known) throw notFound(`digest ${JSON.stringify(digest)} not found in repo ${JSON.stringify(repoId)}`);
    return { repo: repoId, digest };
  };
  /** `<repo uidp>/digests/<digest>` from the capture before the literal last segment. */
  const decode = ({ capture, query }: { capture: string; query: URLSearchParams }): Message => {
    const cut = capture.lastIndexOf('/digests/');
    const [repoId, digest] = cut < 0 ? ['', ''] : [capture.slice(0, cut), capture.slice(cut + '/digests/'.length)];
    return { ...decodeQuery(SIZE_REQUEST, query), repoId, digest };
  };
  const architectures: Route<Message> = {
    method: 'GET',
    path: '/registry/v1/repos',
    capture: true,
    suffix: 'architectures',
    decode,
    run: (request) => {
      image(request);
      return renderMessage(ARCHS, { archs: PLATFORMS });
    },
  };
  const size: Route<Message> = {
    method: 'GET',
    path: '/registry/v1/repos',
    capture: true,
    suffix: 'size',
    decode,
    run: (request) => {
      const { digest } = image(request);
      const arch = String(as<{ arch?: string }>(request).arch || 'amd64');
      if (!PLATFORMS.includes(arch)) throw notFound(`architecture ${JSON.stringify(arch)} not found in image ${digest}`);
      const bytes = 1_000_000 + (createHash('sha256').update(`${digest}\0${arch}`).digest().readUInt32BE(0) % 200_000_000);
      return renderMessage(SIZE, { size: String(bytes), arch });
    },
  };
  return [architectures, size] as Route[];
}
