/**
 * Benchmark child: the v1 emulator on a loopback port chosen by the OS, seeded
 * with one organisation and `--groups` child groups (default 1,000), with or
 * without group timestamps (`--omit-group-timestamps`), its list still or
 * changing a group after every answer (`--change-after-answers`). Prints one
 * JSON line `{"url","orgId","groupId"}` to stdout once it is listening, then
 * serves until its parent closes stdin or sends SIGTERM/SIGINT.
 */
import { parseArgs } from 'node:util';
import { buildEmulator } from '../src/emulator/v1/index.ts';
import { stopWithParent } from './stop-with-parent.ts';

const { values } = parseArgs({
  options: { groups: { type: 'string', default: '1000' }, 'omit-group-timestamps': { type: 'boolean', default: false }, 'change-after-answers': { type: 'boolean', default: false } },
  strict: true,
});
const groups = Number(values.groups);
if (!Number.isInteger(groups) || groups < 1 || groups > 100_000) throw new Error(`--groups: expected 1..100000, got ${values.groups}`);

// --omit-group-timestamps: groups without createdAt/updatedAt, as the public v1 sends them, so the gateway keeps them.
const { app, state } = buildEmulator({ seed: 'none', omitGroupTimestamps: values['omit-group-timestamps'] });
const org = state.createGroup(null, { name: 'bench-org', description: 'benchmark organisation' });
const ids: string[] = [];
for (let i = 0; i < groups; i++) {
  ids.push(state.createGroup(org.id, { name: `group-${String(i).padStart(4, '0')}`, description: `benchmark group ${i}` }).id);
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
