// The FastWorkflow profile's faults: each breaks exactly one FW-* requirement (named by its ID in
// suites/requirements.json) so that the suite can show its FastWorkflow checks can fail.
// The transport faults FW-TRANSPORT-1, -4 and -5 are honoured in front of the HTTP listener
// (http-front.ts), FW-TRANSPORT-2 by the listener's path (start.ts); the tool-list faults
// (FW-TOOL-1, FW-TOOL-2, FW-TOOL-10) by the extension's tool list, which is built from the faults
// switched on. FW-ERR-5, FW-CONV-6 and FW-CONV-7 cannot be
// observed from outside, so none of these has a fault here.
import { defineFault, type FaultDefinition } from '../../faults.js';

const fault = defineFault;

/** Fault names, for the code paths that honour them. */
export const FW_FAULT = {
  answersAsNdjson: 'answers-as-ndjson',
  toolStateShared: 'tool-state-shared',
  unknownSessionNot404: 'unknown-session-not-404',
  postFeedbackUnlisted: 'post-feedback-unlisted',
  adminToolExposed: 'admin-tool-exposed',
  toolsBeforeInitialize: 'tools-before-initialize',
  defaultUserIgnored: 'default-user-ignored',
  initializeResultUnwrapped: 'initialize-result-unwrapped',
  initializeIgnoresConversationId: 'initialize-ignores-conversation-id',
  allowConcurrentTurns: 'allow-concurrent-turns',
  conversationsVisibleAcrossUsers: 'conversations-visible-across-users',
  noTimeout: 'no-timeout',
  initializeInvalidAccepted: 'initialize-invalid-accepted',
  resultAsProse: 'result-as-prose',
  currentContextInWorkflowInfo: 'current-context-in-workflow-info',
  commandsWithoutParameters: 'commands-without-parameters',
  leadingSlashKept: 'leading-slash-kept',
  assistantReturnsCommandResult: 'assistant-returns-command-result',
  malformedCommandAccepted: 'malformed-command-accepted',
  commandResponseFieldsOmitted: 'command-response-fields-omitted',
  outputEventMissing: 'output-event-missing',
  tracesInStreamedOutput: 'traces-in-streamed-output',
  tracesNotAttached: 'traces-not-attached',
  traceTimestampInSeconds: 'trace-timestamp-in-seconds',
  promptArgumentsOptional: 'prompt-arguments-optional',
  promptArgumentMissing: 'prompt-argument-missing',
  promptIgnoresArguments: 'prompt-ignores-arguments',
  promptStartsConversation: 'prompt-starts-conversation',
  actionLogResource: 'action-log-resource',
  failureAsSuccess: 'failure-as-success',
  failureWithoutStatus: 'failure-without-status',
  wrongStatusMapping: 'wrong-status-mapping',
  failureWithoutContext: 'failure-without-context',
  conversationsNotPersisted: 'conversations-not-persisted',
  newConversationKeepsId: 'new-conversation-keeps-id',
  conversationsOldestFirst: 'conversations-oldest-first',
  activateUnknownConversationOk: 'activate-unknown-conversation-ok',
  feedbackBothNullAccepted: 'feedback-both-null-accepted',
  duplicateTopics: 'duplicate-topics',
  excludedPromptsListed: 'excluded-prompts-listed',
  inputSchemaTypeWidened: 'input-schema-type-widened',
  endpointNotAtMcp: 'endpoint-not-at-mcp',
  missingSessionNot400: 'missing-session-not-400',
} as const;

const F = FW_FAULT;

/** Faults the HTTP front of the mock honours (http-front.ts), not the tools. */
export const FW_HTTP_FAULTS: readonly string[] = [FW_FAULT.answersAsNdjson, FW_FAULT.unknownSessionNot404, FW_FAULT.missingSessionNot400];

export const FASTWORKFLOW_FAULTS: readonly FaultDefinition[] = Object.freeze([
  fault(F.answersAsNdjson, 'FW-TRANSPORT-1', 'POST answers come as application/x-ndjson (one JSON message per line) instead of application/json or an SSE stream.'),
  fault(F.toolStateShared, 'FW-TRANSPORT-3', 'Tool state is not keyed to the Mcp-Session-Id: every MCP session shares one runtime (the last initialize tool call wins).'),
  fault(F.unknownSessionNot404, 'FW-TRANSPORT-4', 'A request with an unknown or terminated Mcp-Session-Id is answered 400 instead of 404.'),
  fault(F.postFeedbackUnlisted, 'FW-TOOL-1', 'tools/list leaves out post_feedback (so it cannot be called either).'),
  fault(F.adminToolExposed, 'FW-TOOL-2', "tools/list exposes the admin tool dump_all_conversations, which returns every user's conversations."),
  fault(F.toolsBeforeInitialize, 'FW-SESSION-1', 'Tools other than initialize run before the initialize tool, as if initialize had been called without arguments.'),
  fault(F.defaultUserIgnored, 'FW-SESSION-2', 'initialize without user_id binds the session to "anonymous" instead of "default_user".'),
  fault(F.initializeResultUnwrapped, 'FW-SESSION-3', 'initialize returns the workflow info itself instead of {"workflow_info": ...}.'),
  fault(F.initializeIgnoresConversationId, 'FW-SESSION-4', 'initialize ignores conversation_id and always restores the last conversation.'),
  fault(F.allowConcurrentTurns, 'FW-SESSION-5', 'A second turn while one is in progress runs instead of failing with 409.'),
  fault(F.conversationsVisibleAcrossUsers, 'FW-SESSION-6', "list_conversations lists every user's conversations."),
  fault(F.noTimeout, 'FW-SESSION-7', 'timeout_seconds is ignored: a slow turn runs to the end instead of failing with 504.'),
  fault(F.initializeInvalidAccepted, 'FW-SESSION-8', 'initialize accepts a non-string user_id instead of failing with 422 (converted to a string; behind a validating core, bound as if omitted).'),
  fault(F.resultAsProse, 'FW-TOOL-3', 'Tool results are prose ("key: value" lines) without structuredContent, not the JSON object.'),
  fault(F.currentContextInWorkflowInfo, 'FW-TOOL-4', 'get_workflow_info includes current_context.'),
  fault(F.commandsWithoutParameters, 'FW-TOOL-5', 'get_commands entries lack parameters.'),
  fault(F.leadingSlashKept, 'FW-TOOL-6', 'invoke_agent keeps a leading "/" in the query, so "/what_is_current_context" is not understood.'),
  fault(F.assistantReturnsCommandResult, 'FW-TOOL-7', 'invoke_assistant returns {response_text, success} instead of a CommandOutput.'),
  fault(F.malformedCommandAccepted, 'FW-TOOL-8', 'execute_command answers a malformed command with success: false instead of failing with 422.'),
  fault(F.commandResponseFieldsOmitted, 'FW-TOOL-9', 'CommandOutput leaves out command_parameters and the null fields of each CommandResponse.'),
  fault(F.outputEventMissing, 'FW-STREAM-2', 'After streamed traces the result is the bare CommandOutput, not the {"type":"output"} event.'),
  fault(F.tracesInStreamedOutput, 'FW-STREAM-3', 'The final CommandOutput keeps its traces array although the traces were streamed.'),
  fault(F.tracesNotAttached, 'FW-STREAM-4', 'Without streaming, the final CommandOutput has no traces.'),
  fault(F.traceTimestampInSeconds, 'FW-STREAM-5', 'Trace timestamps are fractional epoch seconds instead of integer milliseconds.'),
  fault(F.promptArgumentsOptional, 'FW-PROMPT-6', 'prompts/list marks the arguments of format-command and clarify-params as not required.'),
  fault(F.promptArgumentMissing, 'FW-PROMPT-1', 'prompts/list leaves the metadata argument out of clarify-params.'),
  fault(F.promptIgnoresArguments, 'FW-PROMPT-3', 'prompts/get returns a fixed text that does not include the given arguments.'),
  fault(F.promptStartsConversation, 'FW-PROMPT-4', 'prompts/get starts a new conversation (a server action) in an initialized session.'),
  fault(F.actionLogResource, 'FW-PROMPT-5', "The server declares resources and lists the workflow's action log."),
  fault(F.failureAsSuccess, 'FW-ERR-1', 'Failures are answered as plain success results carrying the failure body (httpStatus, message), without isError.'),
  fault(F.failureWithoutStatus, 'FW-ERR-4', 'Failures are JSON-RPC errors -32000 without any HTTP-equivalent status (none in data, code or text).'),
  fault(F.wrongStatusMapping, 'FW-ERR-2', 'Invalid tool arguments (bad types or values) fail with 500 instead of 422.'),
  fault(F.failureWithoutContext, 'FW-ERR-3', 'Failure data leaves out user_id and conversation_id.'),
  fault(F.conversationsNotPersisted, 'FW-CONV-1', 'Conversations live only as long as the MCP session; a new session of the same user starts afresh.'),
  fault(F.newConversationKeepsId, 'FW-CONV-2', 'new_conversation answers the current conversation id and does not rotate.'),
  fault(F.conversationsOldestFirst, 'FW-CONV-3', 'list_conversations sorts by updated_at ascending.'),
  fault(F.activateUnknownConversationOk, 'FW-CONV-4', 'activate_conversation answers {"status":"ok"} for an unknown conversation id.'),
  fault(F.feedbackBothNullAccepted, 'FW-CONV-5', 'post_feedback with both fields null answers {"status":"ok"}.'),
  fault(F.duplicateTopics, 'FW-CONV-8', 'Conversation topics are not made unique per user.'),
  // New faults go last: the self-test files take every other entry, so each fault keeps its file.
  fault(F.excludedPromptsListed, 'FW-PROMPT-2', 'prompts/list also lists name-conversation, summarize-conversation and plan-next-steps.'),
  fault(F.inputSchemaTypeWidened, 'FW-TOOL-10', "execute_command's inputSchema declares command as a string or a number, not the documented string."),
  fault(F.endpointNotAtMcp, 'FW-TRANSPORT-2', 'The MCP endpoint is mounted at /api instead of /mcp.'),
  fault(F.missingSessionNot400, 'FW-TRANSPORT-5', 'A request other than initialize without an Mcp-Session-Id header is answered 404 instead of 400.'),
]);
