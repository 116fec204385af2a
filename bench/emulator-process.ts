/**
 * Benchmark child: the v1 emulator on a loopback port chosen by the OS, seeded
 * with one organisation and `--groups` child groups (default 1,000), with or
 * without group timestamps (`--omit-group-timestamps`), its list still or
 * changing a group after every answer (`--change-after-answers`). Prints one
 * JSON line `{"url","orgId","groupId"}` to stdout once it is listening, then
 * serves until its parent closes stdin or sends SIGTERM/SIGINT.
 *
 * `--same-data`: the UIDs and times are made from fixed sequences instead of
 * random bytes and the clock, so two emulators started so hold the same rows
 * (the `compare` part's candidate gets a backend of its own with the primary's
 * data). `--description-suffix <text>`: each group's description ends with it,
 * so a gateway over this emulator answers a Get that differs from the other's in
 * that one field of v1's group.
 */
import { createHash } from 'node:crypto';
import { parseArgs } from 'node:util';
import { buildEmulator } from '../src/emulator/v1/index.ts';
import { stopWithParent } from './stop-with-parent.ts';

const { values } = parseArgs({
  options: {
    groups: { type: 'string', default: '1000' },
    'omit-group-timestamps': { type: 'boolean', default: false },
    'change-after-answers': { type: 'boolean', default: false },
    'same-data': { type: 'boolean', default: false },
    'description-suffix': { type: 'string', default: '' },
  },
  strict: true,
});
const groups = Number(values.groups);
if (!Number.isInteger(groups) || groups < 1 || groups > 100_000) throw new Error(`--groups: expected 1..100000, got ${values.groups}`);

/** Bytes from a counter's SHA-256: the same sequence in every process, as well spread as random ones. */
function sequence(): (size: number) => Buffer {
  let n = 0;
  return (size) => createHash('sha256').update(`bench-uid-${n++}`).digest().subarray(0, size);
}
/** A clock that moves one millisecond a reading from a fixed instant (2025-01-01T00:00:00Z). */
function steppingClock(): () => number {
  let micros = Date.UTC(2025, 0, 1) * 1000;
  return () => (micros += 1000);
}
const sameData = values['same-data'] ? { uidBytes: sequence(), clock: steppingClock() } : {};
const suffix = values['description-suffix'];

// --omit-group-timestamps: groups without createdAt/updatedAt, as the public v1 sends them, so the gateway keeps them.
const { app, state } = buildEmulator({ seed: 'none', omitGroupTimestamps: values['omit-group-timestamps'], ...sameData });
const org = state.createGroup(null, { name: 'bench-org', description: 'benchmark organisation' });
const ids: string[] = [];
for (let i = 0; i < groups; i++) {
  ids.push(state.createGroup(org.id, { name: `group-${String(i).padStart(4, '0')}`, description: `benchmark group ${i}${suffix}` }).id);
}

// --change-after-answers: each answer sent is followed by one group's description changing, in turn, so no two
// answers in a row are the same list: a list polled while it changes, a row or so between one answer and the next.
let changes = 0;
if (values['change-after-answers']) {
  app.addHook('onResponse', (_request, _reply, done) => {
    const at = changes++ % ids.length;
    state.updateGroup(ids[at]!, { name: `group-${String(at).padStart(4, '0')}`, description: `benchmark group ${at}, changed ${changes} times` });
    done();
  });
}
const url = await app.listen({ port: 0, host: '127.0.0.1' });

stopWithParent(() => app.close());

// Middle of the list, so a lookup is not the cheap first entry.
process.stdout.write(`${JSON.stringify({ url, orgId: org.id, groupId: ids[Math.floor(ids.length / 2)], groups })}\n`);
