/**
 * The single exit for failures: whatever was thrown — an ApiError, a Fastify
 * parsing or limit error, or a bug — leaves as an AIP-193 body with the HTTP
 * status that matches its code. Internal details stay in the log.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, domainForPath, internal, invalidField, notFound, toAipBody } from '../../aip/errors.ts';
import { Code } from '../../rpc-status.ts';

function toApiError(error: unknown, request: FastifyRequest): ApiError {
  if (error instanceof ApiError) return error;
  const e = error as Partial<FastifyError> & { statusCode?: number };
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return invalidField('body', `the request body exceeds the limit of ${request.routeOptions.bodyLimit ?? 'configured'} bytes`);
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return invalidField('body', e.message ?? 'the request body is not valid JSON');
  }
  if (error instanceof SyntaxError) return invalidField('body', `the request body is not valid JSON: ${error.message}`);
  if (e.statusCode === 400 && e.message) return invalidField('request', e.message);
  return internal();
}

export function sendError(reply: FastifyReply, request: FastifyRequest, error: unknown): FastifyReply {
  const apiError = toApiError(error, request);
  if (apiError.code === Code.INTERNAL && !(error instanceof ApiError)) {
    request.log.error({ err: error }, 'unhandled error');
  } else if (apiError.httpStatus >= 500) {
    request.log.warn({ code: apiError.code, message: apiError.message }, 'request failed');
  }
  const body = toAipBody(apiError, domainForPath(request.url));
  body.details[0]!.metadata = { ...(body.details[0]!.metadata as object | undefined), requestId: String(request.id) };
  if (apiError.code === Code.UNAUTHENTICATED) reply.header('www-authenticate', 'Bearer');
  return reply.code(apiError.httpStatus).type('application/json').send(body);
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => sendError(reply, request, error));
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, request, notFound('route', `${request.method} ${request.url.split('?')[0]}`)));
}
