/** The service's error hierarchy: AnalystError → ConfigurationError, ToolError, ModelProviderError, StorageUnavailableError, RecordConflictError. */
export { AnalystError } from './analystError.ts';
export { ConfigurationError } from './configurationError.ts';
export { ToolError, type ToolErrorCode, type ToolErrorPayload } from './toolError.ts';
export { ModelProviderError, type ModelFailureKind } from './modelProviderError.ts';
export { StorageUnavailableError } from './storageUnavailableError.ts';
export { KeyHashUnavailableError } from './keyHashUnavailableError.ts';
export { RecordConflictError } from './recordConflictError.ts';
