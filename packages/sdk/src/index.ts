export { AdapterError, type AdapterErrorDetails, adapterErrorDetails } from "./adapter-error.js";
export {
  type AuthorizationCodeFlow,
  type InvokeInput,
  type JSONSchema,
  type ResponseMeta,
  SCHEMA_NAME_KEYWORD,
  type ServiceDefinition,
  type ServiceState,
  type ToolAnnotations,
  type ToolDefinition,
  type ToolDocsInput,
  type ToolPolicy,
  type ToolResponse,
  type ToolState,
} from "./definitions.js";
export {
  EXECUTION_EXIT_STATES,
  EXECUTION_STATES,
  type ExecutionExitState,
  type ExecutionInput,
  type ExecutionOptions,
  type ExecutionState,
  type ServiceCatalog,
  type ServiceCatalogEntry,
} from "./execution.js";
export {
  camelCaseWords,
  identifierWords,
  isValidIdentifier,
  legaliseIdentifier,
  MAX_IDENTIFIER_CHARS,
  RESERVED_IDENTIFIERS,
} from "./identifier.js";
export {
  type AdapterModule,
  type EnvironmentAdmission,
  type EnvironmentBindings,
  type EnvironmentHealth,
  type EnvironmentModule,
  type EnvironmentSetupContext,
  type EnvironmentStats,
  type Logger,
  MODULE_TYPES,
  type Module,
  type ModuleFactory,
  type ModuleManifest,
  type ModuleSetupContext,
  type ModuleType,
  type ToolCallError,
  type ToolDocsOptions,
  type TypesOptions,
} from "./modules.js";
export {
  fetchFollowingRedirects,
  forbiddenAddress,
  type OutboundRequest,
  type RedirectRules,
} from "./outbound.js";
export { MIN_SECRET_LENGTH, secretForms } from "./secret-forms.js";
export {
  type ClosablePort,
  type EndableThread,
  endThread,
  isThreadClose,
  THREAD_CLOSE,
  THREAD_CLOSE_GRACE_MS,
} from "./threads.js";
export {
  type CallTrace,
  type OutboundRequestInfo,
  type OutboundResult,
  type OutboundSpan,
  traceOutbound,
} from "./trace.js";
