export { startGateway } from './server.js';
export type { Gateway, StartGatewayOptions } from './server.js';
export { GatewayApp } from './http/app.js';
export type { GatewayAppOptions, HandledRequest } from './http/app.js';
export type { HttpRequest, HttpResult, RouteDefinition, RouteContext, RouteAuth, RouteResponse } from './http/types.js';
export { GatewayMetrics } from './metrics.js';
export { buildOpenApi } from './openapi.js';
export { VERSION } from './version.js';
