import { Body, Controller, Delete, Get, HttpException, HttpStatus, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiExcludeEndpoint, ApiOperation, ApiResponse } from '@nestjs/swagger';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentAccount } from '../../../shared/http/decorators';
import { ApiBearerController, ApiErrorResponses, headerRefs, RATE_LIMIT_HEADERS } from '../../../shared/http/openapi';
import type { Account } from '../../accounts/domain/account';
import { McpTools } from './mcp-tools';

const NO_STREAM = 'POST /mcp only: this server answers each request in its response and offers no event stream (stateless streamable HTTP)';

/**
 * POST /mcp: the Model Context Protocol over streamable HTTP (issue 47), stateless — each request gets a server and a
 * transport of its own, acting for the account of the bearer token (authenticated, plan-checked and counted by the
 * global guards like any API request; no token is the spec's 401). The SDK's transport writes the answer itself,
 * on the raw Node response: Fastify is told (hijack) and the headers the guards set (X-RateLimit-*) are copied over.
 */
@ApiBearerController('MCP')
@Controller('mcp')
export class McpController {
  constructor(private readonly tools: McpTools) {}

  @ApiOperation({
    summary: 'Model Context Protocol',
    description:
      'A JSON-RPC 2.0 message of the Model Context Protocol (streamable HTTP transport, stateless; send `Accept: application/json, ' +
      'text/event-stream`). Tools: `screenshot`, `page_content`, `watch_page`, `list_changes`. Each request counts against the rate ' +
      'limits. See docs/mcp.md.',
  })
  @ApiBody({
    schema: {
      type: 'object',
      description:
        'A JSON-RPC 2.0 request or notification (`initialize`, `notifications/initialized`, `tools/list`, `tools/call`, …). A message the ' +
        'protocol refuses is answered with a JSON-RPC error (status 400), not the API’s error body.',
      required: ['jsonrpc', 'method'],
      properties: {
        jsonrpc: { type: 'string', enum: ['2.0'] },
        id: { oneOf: [{ type: 'string' }, { type: 'integer' }], description: 'Absent in a notification' },
        method: { type: 'string', example: 'tools/call' },
        params: { type: 'object', example: { name: 'screenshot', arguments: { url: 'https://example.com/', viewport_width: 1280 } } },
      },
    },
  })
  @ApiResponse({
    status: 200,
    description: 'The JSON-RPC response (a tool that fails answers a result with `isError: true` and words)',
    headers: headerRefs(Object.keys(RATE_LIMIT_HEADERS)),
    content: { 'application/json': { schema: { type: 'object' } } },
  })
  @ApiResponse({ status: 202, description: 'A notification was accepted (no body)', headers: headerRefs(Object.keys(RATE_LIMIT_HEADERS)) })
  @ApiErrorResponses('bad_request', 'payload_too_large')
  @Post()
  async handle(@CurrentAccount() account: Account, @Body() message: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const server = this.tools.serverFor(account);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value);
    reply.hijack();
    reply.raw.once('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    // The body as our parsers read it (1 MiB, JSON only); a JSON-RPC message is the protocol's to judge, not a DTO's.
    await transport.handleRequest(request.raw, reply.raw, message);
  }

  /** Streamable HTTP's optional event stream (GET) and session end (DELETE): a stateless server has neither (405, as the protocol says). */
  @ApiExcludeEndpoint()
  @Get()
  stream(@Res({ passthrough: true }) reply: FastifyReply): never {
    reply.header('Allow', 'POST');
    throw new HttpException(NO_STREAM, HttpStatus.METHOD_NOT_ALLOWED);
  }

  @ApiExcludeEndpoint()
  @Delete()
  endSession(@Res({ passthrough: true }) reply: FastifyReply): never {
    reply.header('Allow', 'POST');
    throw new HttpException(NO_STREAM, HttpStatus.METHOD_NOT_ALLOWED);
  }
}
