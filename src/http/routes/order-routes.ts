import type { PlacedOrder } from '../../core/order/order-commands';
import { TOKENS } from '../../core/tokens';
import { HttpReply, route } from '../route-table';
import { Success } from '../wire/reply-schemas';
import {
  RegisterBody,
  RenewBody,
  TransferBody,
  toRegisterCommand,
  toRenewCommand,
  toTransferCommand,
} from '../wire/order-wire';

/** docs/api.md#idempotency-key: an optional `Idempotency-Key` header on the paid order endpoints. */
const IDEMPOTENCY_HEADER = 'idempotency-key';

/**
 * docs/api.md#order-id-and-status: the body stays the contract's "success" (the WHMCS and Blesta
 * modules read only that); the order's id and status travel in headers for clients that want them.
 */
const ORDER_HEADERS = {
  'Order-Id': "The order's id (a ULID), the same on an idempotent replay",
  'Order-Status': "The order's status when the reply was made: pending, completed or failed",
} as const;

function placed(order: PlacedOrder): HttpReply {
  return new HttpReply(200, 'success', undefined, { 'Order-Id': order.orderId, 'Order-Status': order.status });
}

export const orderRoutes = [
  route({
    method: 'post',
    path: '/order/domains/register',
    access: 'reseller',
    idempotent: true,
    replyHeaders: ORDER_HEADERS,
    summary: 'Registers a domain paid from credit; "success" once registration is done or started',
    input: RegisterBody,
    output: Success,
    handler: ({ input, reseller, header, resolve }) =>
      resolve(TOKENS.orderService)
        .register(reseller, toRegisterCommand(input), { idempotencyKey: header(IDEMPOTENCY_HEADER) })
        .then(placed),
  }),
  route({
    method: 'post',
    path: '/order/domains/transfer',
    access: 'reseller',
    idempotent: true,
    replyHeaders: ORDER_HEADERS,
    summary: 'Transfers a domain in with its EPP code, paid from credit',
    input: TransferBody,
    output: Success,
    handler: ({ input, reseller, header, resolve }) =>
      resolve(TOKENS.orderService)
        .transfer(reseller, toTransferCommand(input), { idempotencyKey: header(IDEMPOTENCY_HEADER) })
        .then(placed),
  }),
  route({
    method: 'post',
    path: '/order/domains/renew',
    access: 'reseller',
    idempotent: true,
    replyHeaders: ORDER_HEADERS,
    summary: 'Renews a domain of the reseller that is Active, Expired or in Grace',
    input: RenewBody,
    output: Success,
    handler: ({ input, reseller, header, resolve }) =>
      resolve(TOKENS.orderService)
        .renew(reseller, toRenewCommand(input), { idempotencyKey: header(IDEMPOTENCY_HEADER) })
        .then(placed),
  }),
];
