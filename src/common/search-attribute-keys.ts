import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { SEARCH_ATTRIBUTES } from './wire.js';

/** Typed keys of the Tollgate search attributes, for workflows (upsert) and clients (start, list). */
export const SA_KEYS = {
  agentId: defineSearchAttributeKey(SEARCH_ATTRIBUTES.agentId.name, SearchAttributeType.KEYWORD),
  status: defineSearchAttributeKey(SEARCH_ATTRIBUTES.status.name, SearchAttributeType.KEYWORD),
  threadId: defineSearchAttributeKey(SEARCH_ATTRIBUTES.threadId.name, SearchAttributeType.KEYWORD),
  resourceId: defineSearchAttributeKey(
    SEARCH_ATTRIBUTES.resourceId.name,
    SearchAttributeType.KEYWORD,
  ),
  pendingTools: defineSearchAttributeKey(
    SEARCH_ATTRIBUTES.pendingTools.name,
    SearchAttributeType.KEYWORD_LIST,
  ),
  forkedFrom: defineSearchAttributeKey(
    SEARCH_ATTRIBUTES.forkedFrom.name,
    SearchAttributeType.KEYWORD,
  ),
} as const;
