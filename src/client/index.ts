/** The reseller SDK: a typed client for every operation of the reseller API. Self-contained: it imports nothing from the server. */
export {
  ResellerClient,
  type ResellerClientOptions,
  type CallOptions,
  type OrderCallOptions,
  type RegisterOrder,
  type TransferOrder,
  type RenewOrder,
  type SearchQuery,
  type DnsRecordInput,
  type EmailForwardInput,
  type ContactSet,
  type ContactFields,
  type ContactRole as ClientContactRole,
  type Addons,
  type PricingAction,
} from './reseller-client';
export { ResellerApiError, isResellerApiError, type ResellerApiErrorKind } from './reseller-api-error';
export { apiToken, apiTokenHour } from './api-token';
export {
  encodeForm,
  encodeDomainFields,
  type FormValue,
  type FormEncodingOptions,
  type PhpValue,
} from './form-encoding';
export type {
  RegistrarResult,
  PeriodPrices,
  TldPricingRow as ClientTldPricingRow,
  PeriodPricing,
  DomainSuggestion,
  DomainInformation as DomainInformationReply,
  NameserverSet,
  DomainSyncReply,
  TransferSyncReply,
  DnsRecordReply,
  EmailForwardReply,
  ContactDetails,
} from './replies';
