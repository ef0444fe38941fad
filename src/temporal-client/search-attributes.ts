/**
 * Registers Tollgate's custom search attributes on a Temporal namespace through the operator API.
 */
import { isGrpcServiceError, type Connection } from '@temporalio/client';
// @temporalio/proto is CommonJS and its `temporal` namespace is not detected as a named ESM
// export, so it must come through the default import.
import proto from '@temporalio/proto';
import { SEARCH_ATTRIBUTES, type SearchAttributeSpec } from '../common/wire.js';

const { IndexedValueType } = proto.temporal.api.enums.v1;

const INDEXED_VALUE_TYPES: Record<
  SearchAttributeSpec['type'],
  proto.temporal.api.enums.v1.IndexedValueType
> = {
  Keyword: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  KeywordList: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST,
};

/** gRPC status returned when another process registered the same attribute first. */
const GRPC_ALREADY_EXISTS = 6;

/**
 * Makes sure every entry of `SEARCH_ATTRIBUTES` is registered on `namespace`, adding only the
 * missing ones. Safe to call from several workers at once.
 */
export async function ensureSearchAttributes(
  connection: Connection,
  namespace: string,
): Promise<void> {
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  const missing = Object.values(SEARCH_ATTRIBUTES).filter(
    (attribute) => !(attribute.name in customAttributes),
  );
  if (missing.length === 0) return;

  const searchAttributes = Object.fromEntries(
    missing.map((attribute) => [attribute.name, INDEXED_VALUE_TYPES[attribute.type]]),
  );
  try {
    await connection.operatorService.addSearchAttributes({ namespace, searchAttributes });
  } catch (error) {
    if (!(isGrpcServiceError(error) && error.code === GRPC_ALREADY_EXISTS)) throw error;
  }
}
