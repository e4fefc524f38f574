import type { Knex } from 'knex';
import * as createResellerGroups from './20261121090000_create_reseller_groups';
import * as createResellers from './20261121090100_create_resellers';
import * as createTlds from './20261121090200_create_tlds';
import * as createTldPrices from './20261121090300_create_tld_prices';
import * as createCreditAccounts from './20261121090400_create_credit_accounts';
import * as createCreditEntries from './20261121090500_create_credit_entries';
import * as createDomains from './20261121090600_create_domains';
import * as createPluginState from './20261122090000_create_plugin_state';
import * as addNameserversToDomains from './20261122090100_add_nameservers_to_domains';
import * as addTransferLockToDomains from './20261122090200_add_transfer_lock_to_domains';
import * as addAddonsToDomains from './20261122090300_add_addons_to_domains';
import * as createOrders from './20261122140000_create_orders';
import * as createIdempotencyKeys from './20261122140100_create_idempotency_keys';
import * as createAddonPrices from './20261122140200_create_addon_prices';
import * as addCreditEntriesOrderKindUnique from './20261122140300_add_credit_entries_order_kind_unique';
import * as addAllowedNetworksToResellers from './20261123090000_add_allowed_networks_to_resellers';
import * as addSyncClaimToDomains from './20261123090100_add_sync_claim_to_domains';
import * as addSyncIndexToDomains from './20261123090200_add_sync_index_to_domains';
import * as createApiLog from './20261123090300_create_api_log';
import * as addSyncOrderIndexToDomains from './20261124090000_add_sync_order_index_to_domains';
import * as createPremiumRules from './20261124210000_create_premium_rules';
import * as addPremiumCostsToDomains from './20261126100000_add_premium_costs_to_domains';
import * as createPremiumQuotes from './20261126100100_create_premium_quotes';
import * as createAuditLog from './20261126130000_create_audit_log';
import * as createOperators from './20261126130100_create_operators';
import * as createWebSessions from './20261126130200_create_web_sessions';
import * as createOneTimeLinks from './20261126130300_create_one_time_links';
import * as addResellerNameIndexToDomains from './20261126140000_add_reseller_name_index_to_domains';
import * as dropResellerIndexFromDomains from './20261126140100_drop_reseller_index_from_domains';
import * as createPortalLogins from './20261126140200_create_portal_logins';
import * as addLowCreditToResellers from './20261126150000_add_low_credit_to_resellers';
import * as createOutboxEvents from './20261126150100_create_outbox_events';
import * as createWebhookEndpoints from './20261126150200_create_webhook_endpoints';
import * as createWebhookDeliveries from './20261126150300_create_webhook_deliveries';
import * as createDomainExpiryNotices from './20261126150400_create_domain_expiry_notices';
import * as createExpiryDigests from './20261126150500_create_expiry_digests';
import * as addTotpLastStepToOperators from './20261127120000_add_totp_last_step_to_operators';
import * as addTotpLastStepToPortalLogins from './20261127120100_add_totp_last_step_to_portal_logins';
import * as createDomainSyncAnswers from './20261127120200_create_domain_sync_answers';
import * as addBodiesToApiLog from './20261127130000_add_bodies_to_api_log';
import * as createEventRouting from './20261127150000_create_event_routing';
import * as addSendingStateToExpiryDigests from './20261127150100_add_sending_state_to_expiry_digests';
import * as addTldNameIndexToDomains from './20261129030000_add_tld_name_index_to_domains';
import * as addRegistrarNameIndexToDomains from './20261129030100_add_registrar_name_index_to_domains';
import * as addStatusNameIndexToDomains from './20261129030200_add_status_name_index_to_domains';
import * as addExpiryDateIndexToDomains from './20261129030300_add_expiry_date_index_to_domains';
import * as dropStatusIndexFromDomains from './20261129030400_drop_status_index_from_domains';
import * as dropStatusSyncedAtIndexFromDomains from './20261129030500_drop_status_synced_at_index_from_domains';
import * as makeIdempotencyKeysCaseSensitive from './20261130040000_make_idempotency_keys_case_sensitive';
import * as pointCreditEntriesAtTheirAccount from './20261201000000_point_credit_entries_at_their_account';
import * as dropOrderIdIndexFromCreditEntries from './20261202000000_drop_order_id_index_from_credit_entries';

export interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/**
 * Every migration in order. A static list rather than a directory scan, so the same source
 * works from TypeScript, from compiled JavaScript and from a bundle. Append; never edit a landed one.
 */
export const MIGRATIONS: ReadonlyArray<readonly [name: string, migration: Migration]> = [
  ['20261121090000_create_reseller_groups', createResellerGroups],
  ['20261121090100_create_resellers', createResellers],
  ['20261121090200_create_tlds', createTlds],
  ['20261121090300_create_tld_prices', createTldPrices],
  ['20261121090400_create_credit_accounts', createCreditAccounts],
  ['20261121090500_create_credit_entries', createCreditEntries],
  ['20261121090600_create_domains', createDomains],
  ['20261122090000_create_plugin_state', createPluginState],
  ['20261122090100_add_nameservers_to_domains', addNameserversToDomains],
  ['20261122090200_add_transfer_lock_to_domains', addTransferLockToDomains],
  ['20261122090300_add_addons_to_domains', addAddonsToDomains],
  ['20261122140000_create_orders', createOrders],
  ['20261122140100_create_idempotency_keys', createIdempotencyKeys],
  ['20261122140200_create_addon_prices', createAddonPrices],
  ['20261122140300_add_credit_entries_order_kind_unique', addCreditEntriesOrderKindUnique],
  ['20261123090000_add_allowed_networks_to_resellers', addAllowedNetworksToResellers],
  ['20261123090100_add_sync_claim_to_domains', addSyncClaimToDomains],
  ['20261123090200_add_sync_index_to_domains', addSyncIndexToDomains],
  ['20261123090300_create_api_log', createApiLog],
  ['20261124090000_add_sync_order_index_to_domains', addSyncOrderIndexToDomains],
  ['20261124210000_create_premium_rules', createPremiumRules],
  ['20261126100000_add_premium_costs_to_domains', addPremiumCostsToDomains],
  ['20261126100100_create_premium_quotes', createPremiumQuotes],
  ['20261126130000_create_audit_log', createAuditLog],
  ['20261126130100_create_operators', createOperators],
  ['20261126130200_create_web_sessions', createWebSessions],
  ['20261126130300_create_one_time_links', createOneTimeLinks],
  ['20261126140000_add_reseller_name_index_to_domains', addResellerNameIndexToDomains],
  ['20261126140100_drop_reseller_index_from_domains', dropResellerIndexFromDomains],
  ['20261126140200_create_portal_logins', createPortalLogins],
  ['20261126150000_add_low_credit_to_resellers', addLowCreditToResellers],
  ['20261126150100_create_outbox_events', createOutboxEvents],
  ['20261126150200_create_webhook_endpoints', createWebhookEndpoints],
  ['20261126150300_create_webhook_deliveries', createWebhookDeliveries],
  ['20261126150400_create_domain_expiry_notices', createDomainExpiryNotices],
  ['20261126150500_create_expiry_digests', createExpiryDigests],
  ['20261127120000_add_totp_last_step_to_operators', addTotpLastStepToOperators],
  ['20261127120100_add_totp_last_step_to_portal_logins', addTotpLastStepToPortalLogins],
  ['20261127120200_create_domain_sync_answers', createDomainSyncAnswers],
  ['20261127130000_add_bodies_to_api_log', addBodiesToApiLog],
  ['20261127150000_create_event_routing', createEventRouting],
  ['20261127150100_add_sending_state_to_expiry_digests', addSendingStateToExpiryDigests],
  ['20261129030000_add_tld_name_index_to_domains', addTldNameIndexToDomains],
  ['20261129030100_add_registrar_name_index_to_domains', addRegistrarNameIndexToDomains],
  ['20261129030200_add_status_name_index_to_domains', addStatusNameIndexToDomains],
  ['20261129030300_add_expiry_date_index_to_domains', addExpiryDateIndexToDomains],
  ['20261129030400_drop_status_index_from_domains', dropStatusIndexFromDomains],
  ['20261129030500_drop_status_synced_at_index_from_domains', dropStatusSyncedAtIndexFromDomains],
  ['20261130040000_make_idempotency_keys_case_sensitive', makeIdempotencyKeysCaseSensitive],
  ['20261201000000_point_credit_entries_at_their_account', pointCreditEntriesAtTheirAccount],
  ['20261202000000_drop_order_id_index_from_credit_entries', dropOrderIdIndexFromCreditEntries],
];
