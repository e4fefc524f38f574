import { TOKENS } from '../../core/tokens';
import { route } from '../route-table';
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

export const orderRoutes = [
  route({
    method: 'post',
    path: '/order/domains/register',
    access: 'reseller',
    idempotent: true,
    summary: 'Registers a domain paid from credit; "success" once registration is done or started',
    input: RegisterBody,
    output: Success,
    handler: ({ input, reseller, header, resolve }) =>
      resolve(TOKENS.orderService).register(reseller, toRegisterCommand(input), {
        idempotencyKey: header(IDEMPOTENCY_HEADER),
      }),
  }),
  route({
    method: 'post',
    path: '/order/domains/transfer',
    access: 'reseller',
    idempotent: true,
    summary: 'Transfers a domain in with its EPP code, paid from credit',
    input: TransferBody,
    output: Success,
    handler: ({ input, reseller, header, resolve }) =>
      resolve(TOKENS.orderService).transfer(reseller, toTransferCommand(input), {
        idempotencyKey: header(IDEMPOTENCY_HEADER),
      }),
  }),
  route({
    method: 'post',
    path: '/order/domains/renew',
    access: 'reseller',
    idempotent: true,
    summary: 'Renews a domain of the reseller that is Active, Expired or in Grace',
    input: RenewBody,
    output: Success,
    handler: ({ input, reseller, header, resolve }) =>
      resolve(TOKENS.orderService).renew(reseller, toRenewCommand(input), {
        idempotencyKey: header(IDEMPOTENCY_HEADER),
      }),
  }),
];
