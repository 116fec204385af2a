'use strict'
// What the build (scripts/build.ts) gives the gateway for `undici`: the parts of undici the gateway and
// the benchmark's floors import, taken from the files undici's own index.js takes them from, so they are
// the same objects. undici's index.js loads all of undici (fetch, WebSocket, the mock agents, the
// caches, ...) whatever is used; this loads a pool and what it needs, ~2 MB less RSS for the life of
// the process. test/scripts/undici-slim.test.ts fails when the sources import something this lacks.
const Dispatcher = require('undici/lib/dispatcher/dispatcher')

// As undici's index.js does: request(), stream(), pipeline(), ... on every dispatcher.
Object.assign(Dispatcher.prototype, require('undici/lib/api'))

module.exports = {
  Dispatcher,
  Pool: require('undici/lib/dispatcher/pool'),
  errors: require('undici/lib/core/errors')
}
