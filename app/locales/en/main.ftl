# The console in English. Every id here is in zh-CN/main.ftl too (app/src/i18n.rs tests it).
# These are the labels API.md §9 names and the QA suites find: change none of them lightly.

none = none
none-yet = none yet
not-yet = not yet
yes = yes
no = no

## Navigation and the language switch
nav-main = Main
nav-overview = Overview
nav-payouts = Payouts
nav-orders = Orders
nav-keys = Keys
nav-requests = Requests
nav-webhooks = Webhooks
nav-reconciliation = Reconciliation
nav-team = Team
nav-api-keys = API keys
nav-audit = Audit log
nav-security = Security
nav-support = Support
nav-sign-out = Sign out
nav-language = Language
nav-menu = Menu

## Fields used on more than one page
field-status = Status
field-amount = Amount
field-currency = Currency
field-account-holder = Account holder
field-iban = IBAN
field-idempotency-key = Idempotency key
field-created = Created
field-expires = Expires
field-description = Description
field-error = Error
field-email = Email
field-password = Password
field-authentication-code = Authentication code

## List filters
filter-any = any
filter-from = From (date)
filter-to = To (date)
filter-submit = Filter
filter-refused-day = Dates are days, such as 2026-12-04.
filter-refused-status = Status must be an HTTP status code, such as 201 or 422.
filter-refused-action = Choose an action from the list.
filter-refused-verdict = Choose a verdict from the list.
filter-refused-page = That page no longer exists; start from the first page.
filter-refused = These filters cannot be read; change them and try again.
pager-next = Next page →
export-csv = Export CSV

## Pages that cannot be shown
failure-title = Something went wrong
failure-body = The page could not be loaded. Reload it in a moment; nothing you did was lost.
merchant-page-title = Merchant page
merchant-page-before = This page shows one merchant's data. Support staff find any merchant's keys, payouts and orders in{" "}
merchant-page-after = .
not-found-title = Page not found
not-found-before = There is nothing here.{" "}
not-found-link = Go to the console's start page
not-found-after = .

## Answers outside the pages: refused forms and exports (their HTTP status says the rest)
notice-refused-title = That cannot be done
notice-form-expired = This form has expired or did not come from this site; reload the page and try again.
notice-failure = Something went wrong on our side; nothing was lost. Go back and try again.
notice-export-for-merchant-users = Exports of this list are for merchant users.
notice-export-sign-in = Sign in to export.
forbidden-manage-orders = Your role may not capture or cancel orders (owners, admins and finance may). Ask an owner or an admin of your team.
forbidden-manage-integrations = Your role may not manage webhooks and API keys (owners, admins and developers may). Ask an owner or an admin of your team.

## The error codes' fixed sentences
refusal-insufficient-funds = The available balance is lower than the payout amount.
refusal-exceeds-refundable = That is more than is left to refund of this order.
refusal-available = The available balance is lower than the payout amount: { $available } is available.
refusal-name = Enter a name of one line, up to 100 characters.
refusal-amount = Enter the amount in the currency's units, such as 12.50 (whole numbers for JPY).
refusal-currency = Choose one of the currencies offered.
refusal-account-holder = Enter the account holder's name (up to 140 characters).
refusal-iban = Enter an IBAN: a country code, two check digits and up to 30 letters or digits.
refusal-date = Enter a day as YYYY-MM-DD.
refusal-url = Enter the endpoint's URL: http(s) to a host the service may reach.
refusal-events = Name event types from the list, separated by commas, or leave Events empty for all.
refusal-overlap = Choose how long the old secret stays valid.
refusal-event-type = Choose an event type from the list.
refusal-since = Enter the day to recover failed deliveries from.
refusal-invalid-request = A value in the form is missing or not valid.
refusal-form-expired = This form has expired; reload the page and try again.
refusal-moved-on = It has already moved on; reload the page to see where it stands.
refusal-missing = That no longer exists.
refusal-not-allowed = Only support staff may do that outside test mode.
refusal-other = That did not work; reload the page and try again.

## Test mode
test-mode-region = Test mode
test-mode-title = Test mode.
test-mode-body = The partner bank is the simulator: no money moves. A payout to one of these IBANs has a fixed outcome; any other valid IBAN is paid.
test-mode-outcome = Outcome
test-mode-paid = paid
test-mode-refused = refused by the partner (422 account_closed): failed, the amount credited back
test-mode-returned = paid, then returned 5 seconds later: reversed, the amount credited back
test-mode-slow = the first call times out (the transfer is made, its answer lost); the retry gets the same transfer: paid once
test-mode-duplicated = booked twice by the partner: paid once, the duplicate found and reversed by reconciliation
test-mode-held = held at the partner (in transit) until released with POST /_sim/transfers/{"{"}id{"}"}/release, then paid

## Codes the backend stores, as shown to people (in English: the code itself)
code-pending = pending
code-in_transit = in_transit
code-paid = paid
code-succeeded = succeeded
code-failed = failed
code-reversed = reversed
code-captured = captured
code-cancelled = cancelled
code-in_progress = in_progress
code-completed = completed
code-expired = expired
code-running = running
code-partial = partial
code-attention = attention
code-enabled = enabled
code-disabled = disabled
code-delivered = delivered
code-new = new
code-replayed = replayed
code-mismatch = mismatch
code-api = API
code-console = Console
code-matched = matched
code-duplicate = duplicate
code-missing = missing
code-unknown = unknown
code-amount_mismatch = amount_mismatch
code-status_mismatch = status_mismatch
code-unknown_incoming = unknown_incoming
code-already_reversed = already_reversed
code-claimed = claimed
code-refused = refused
code-resolved = resolved
subject-key = key
subject-payout = payout
subject-order = order
role-owner = owner
role-admin = admin
role-developer = developer
role-finance = finance
role-viewer = viewer

## Sign in
login-submit = Sign in
login-invalid = Those credentials are not right. Check them and try again.
login-throttled = Too many failed sign-ins. Wait 15 minutes, then try again.
login-expired = The form had expired. Please sign in again.
login-verify = Verify
login-code-hint = Enter the 6-digit code from your authenticator app, or one of your recovery codes.
login-code-invalid = That code is not right, or it was already used. Enter the current code from your app, or an unused recovery code.

## Overview
home-balance = Balance
home-no-balance = No balance yet: capture an order to credit it.
home-outcomes = Idempotency outcomes, last 24 hours
home-recent-payouts = Recent payouts
home-recent-orders = Recent orders
chart-new = new
chart-replayed = replayed
chart-in-progress = in progress
chart-mismatch = mismatch
chart-bar = { $hour }: { $count } { $series }
chart-summary = { $total } idempotent requests in the last 24 hours
chart-caption = { $summary }.{" "}

## Payouts
payout-payout = Payout
payout-new = New payout
payout-submit = Pay out
payout-paying-out = Paying out…
payout-available = Available to pay out
forbidden-create-payouts = Your role may not create payouts (owners, admins and finance may). Ask an owner or an admin of your team.
payouts-empty = No payouts yet. Use “New payout” to send money to a bank account.
payout-partner-transfer = Partner transfer
payout-failure = Failure
payout-updated = Updated
payout-all = All payouts

## Orders
order-order = Order
orders-empty = No orders yet. Create one with POST /v1/orders and your API key.
order-capture = Capture
order-cancel = Cancel
order-refund = Refund
refund-new = Refund this order
refund-refunds = Refunds
refund-refund = Refund
refund-amount-hint = All that is left
order-all = All orders

## Idempotency keys
key-title = Idempotency keys
key-look-up = Look up
key-no-record = No record for this key. Keys are per merchant and are kept for 24 hours.
key-invalid = This is not an idempotency key: a key is 1 to 255 visible ASCII characters, without spaces.
key-live = In progress since { $since }: this page refreshes itself.
key-key = Key
key-endpoint = Endpoint
key-request-hash = Request hash
key-resource = Resource
key-recovery-point = Recovery point
key-attempts = Attempts
key-last-change = Last change
key-stored-response = Stored response

## Request log
requests-empty = No request matches. Requests appear here a few seconds after they are made.
requests-hint = A request id or an idempotency key finds its requests whatever their day.
request-id = Request id
request-time = Time
request-route = Route
request-verdict = Verdict
request-latency = Latency
request-request = Request
request-its-timeline = (its timeline)
request-path = Path
request-api-key = Made by (API key or member)
request-door = Made through
request-client-address = Client address
request-client-id = Client's request id
request-request-body = Request body
request-response-body = Response body
request-all = All requests

## Support and timelines
support-any-id = Any id: request, key, payout, order, event, delivery, transfer, end-to-end key or merchant
support-search = Search
support-empty = Nothing matches. Try an exact id, or widen the time range.
support-merchant = Merchant
support-found = Found
support-detail = Detail
timeline-title = Timeline
timeline-empty = Nothing has happened yet.
timeline-of-key = Idempotency key { $key }
timeline-of-payout = Payout { $id }
timeline-of-order = Order { $id }
timeline-read-only = . Read only.{" "}
timeline-search-again = Search again

## Timelines: each moment's badge (in English the kind as the API names it) and its sentence,
## which in English is also the API's `summary` (keep it word for word)
moment-after-ms = +{ $ms } ms
moment-after-s = +{ $s } s
moment-kind-request = request
moment-kind-record = record
moment-kind-payout = payout
moment-kind-order = order
moment-kind-partner_call = partner_call
moment-kind-partner_webhook = partner_webhook
moment-kind-reconciliation = reconciliation
moment-kind-reversal = reversal
moment-kind-event = event
moment-kind-delivery = delivery
moment-request-answered = { $route } answered { $outcome } in { $latency } ms
moment-record-stored = record stored for { $endpoint }
moment-record-changed = record { $status }
moment-record-failed = record { $status }: { $error }
moment-payout-created = payout of { $money } created under end-to-end key { $partner_key }
moment-order-created = order of { $money } created
moment-partner-call = { $call } under { $partner_key }: { $answer } ({ $latency } ms)
moment-partner-webhook = { $event_type } for transfer { $transfer }
moment-reconciled = reconciliation of { $day }: { $item }{ $action }{ $transfer }
moment-reconciliation-action = , { $action }
moment-reconciliation-transfer = {" "}(transfer { $transfer })
moment-reversal-state = duplicate transfer { $transfer }: reversal { $state }
moment-duplicate-to-reverse = duplicate transfer: reconciliation reverses it
moment-duplicate-reversed = duplicate transfer: reconciliation reversed it
moment-duplicate-resolved = duplicate transfer: resolved by a person
moment-event-sent = { $event_type } sent to the merchant
moment-delivery-attempt = { $event_type } to { $url }: { $answer } in { $latency } ms
moment-delivery-http = HTTP { $status }
moment-delivery-no-answer = no answer

## Webhooks
webhooks-endpoints = Endpoints
webhooks-endpoint = Endpoint
webhooks-endpoint-url = Endpoint URL
webhooks-events = Events
webhooks-events-placeholder = all, or e.g. payout.paid, payout.failed
webhooks-add = Add endpoint
webhooks-actions = Actions
webhooks-no-endpoints = No endpoints yet. Add one above, or with POST /v1/webhook-endpoints and your API key.
webhooks-test-event-for = Test event for { $id }
webhooks-overlap-for = Overlap for { $id }
webhooks-failed-since-for = Failed since (date) for { $id }
webhooks-send-test = Send test event
webhooks-overlap-24h = old secret valid 24 h
webhooks-overlap-1h = old secret valid 1 h
webhooks-overlap-7d = old secret valid 7 days
webhooks-overlap-now = old secret stops now
webhooks-rotate = Rotate secret
webhooks-recover = Recover failed deliveries
webhooks-enable = Enable
webhooks-disable = Disable
webhooks-delete = Delete
webhooks-redeliver = Redeliver
webhooks-reproduce = Send the delivery to { $url } again with curl (signed now: a verifier accepts it for 5 minutes)
api-keys-name = Name
api-keys-prefix = Prefix
api-keys-access = Access
api-keys-read-write = Read and write
api-keys-read-only = Read only
api-keys-created = Created
api-keys-last-used = Last used
api-keys-never = Never
api-keys-expires = Stops working
api-keys-create = Create key
api-keys-acts-for = Acts for
api-keys-for-me = Me (my role bounds it)
api-keys-for-merchant = The merchant
api-keys-roll = Roll
api-keys-revoke = Revoke
api-keys-overlap-for = How long { $name } keeps working beside its successor
api-keys-none = No API keys yet.
api-keys-secret-shown = The new key's secret, shown only now: copy it into your integration's settings.
webhooks-verify-title = Verify a delivery in your endpoint's code
webhooks-verify-intro = Check the signature on the raw body before parsing it. The Standard Webhooks libraries (pip or npm "standardwebhooks") do the same; by hand it is:
webhooks-secret-shown = The endpoint's signing secret, shown only now:
webhooks-recent-events = Recent events
webhooks-no-events = No events yet: they are written with every order and payout change.
webhooks-event-created = Created { $at }
webhooks-no-deliveries = No endpoint was subscribed to this event.
webhooks-delivery = Delivery
webhooks-attempt = Attempt
webhooks-answer = Answer
webhooks-at = At

## Reconciliation
runs-test-mode = Test mode:
runs-test-mode-body = the partner bank is the simulator.
runs-day-utc = Day (UTC)
runs-run-now = Run reconciliation now
runs-lead = Each day the partner's transfers are matched to payouts; duplicates made by a partner that ignored our keys are reversed once (a reversal the partner refuses is retried until done). A run needs attention when a payout's status contradicts its transfer at the partner (status_mismatch): nothing is done about it automatically, a person decides.
runs-empty = No runs yet: the daily run reconciles yesterday, or run `kaadxpay reconcile --date YYYY-MM-DD`.
runs-run = Run
runs-day = Day
runs-applied = Applied
runs-run-at = Run at
run-summary = Day { $day }, { $mode }, { $status }.
run-applied = applied
run-report-only = report only
run-no-items = No items in this run.
run-kind = Kind
run-transfer = Transfer
run-transfer-of = Payout or refund
run-action = Action
run-all = All runs

## Team
team-role = Role
team-invite = Invite
team-members = Members
team-joined = Joined
team-change = Change
team-role-of = Role of { $email }
team-change-role = Change role
team-remove = Remove
team-revoke-invitation = Revoke
team-invitations = Invitations
team-no-invitations = No invitation is waiting.
forbidden-manage-team = Your role may not manage the team (owners and admins may). Ask an owner or an admin of your team.
team-invitation-mailed = Invitation mailed. The link in it works once, for 7 days.
team-invitation-unsent = The invitation could not be mailed; send the link below yourself.
team-invitation-made = Invitation made. Send this link to the new member; it works once, for 7 days, and is shown only now:
team-refusal-role = Your role may not give that role, or change that member.
team-refusal-last-owner = A team keeps at least one owner: make another member owner first.
team-refusal-unknown-member = That member is no longer in the team.
team-refusal-taken = That email already has an account.
team-refusal-email = Enter an email address.
team-refusal-password = Choose a password of at least 8 characters.
team-invitation-gone = This invitation has expired or has been used. Ask for a new one.
team-join-title = Join the team
team-invited-as = You are invited as{" "}
team-invited-with = {" "}with{" "}
team-invited-end = . Choose a password to join.
team-join = Join

# The audit log (/settings/audit)
forbidden-see-audit-log = Your role may not see the audit log (owners and admins may). Ask an owner or an admin of your team.
audit-when = When
audit-who = Who
audit-action = Action
audit-object = Object
audit-address = Address
audit-change = Before → after
audit-actor-user = member
audit-actor-api-key = API key
audit-actor-support = support staff
audit-actor-operator = operator
audit-empty = No entry matches. Every change to the account, every sign-in and every look-up by support staff is recorded here.
audit-hint = Entries are kept for a year and can never be changed.

## Approval of large payouts (/payouts/{id}, /settings/payouts)
nav-payout-settings = Payout approvals
code-pending_approval = pending_approval
code-rejected = rejected
forbidden-manage-thresholds = Your role may not change the approval thresholds (owners and admins may). Ask an owner or an admin of your team.
notice-own-payout = You created this payout, so you may not approve or reject it: another member who may create payouts must.
payout-created-by = Created by
payout-decided-by = Approved or rejected by
approval-awaiting = This payout is at or above the approval threshold: no money moves until a second member approves it. Rejecting it gives the amount back to the balance.
approval-awaiting-other = This payout awaits approval by another member who may create payouts (not the one who created it).
approval-approve = Approve
approval-reject = Reject
approval-cancel = Cancel payout
threshold-hint = A payout at or above the threshold of its currency waits in pending_approval until another member approves it. No threshold means no approval. Leave the amount empty to remove a currency's threshold.
threshold-amount = Approval threshold
threshold-save = Save
threshold-current = Current thresholds
threshold-none = No threshold is set: no payout needs approval.
## Two-step sign-in (/settings/security) and step-up (/step-up)
security-set-up = Set up two-step sign-in
security-scan = Scan this QR code with an authenticator app (such as Google Authenticator, 1Password or Authy), then enter the code it shows.
security-qr = QR code of the secret, for an authenticator app
security-or-type = Or type this secret into the app:
security-turn-on = Turn on two-step sign-in
security-recovery-codes = Two-step sign-in is on. Keep these recovery codes somewhere safe: each signs you in once without your phone, and they are shown only now.
security-on = Two-step sign-in is on since { $since }; { $left } recovery codes left. If you lose your phone, sign in with a recovery code, or ask an operator to reset it.
security-required-notice = Your team requires two-step sign-in: set it up to continue.
security-require-all = Require two-step sign-in for every member
security-save = Save
step-up-title = Confirm it is you

# The balance page and its statement (/balance).
nav-balance = Balance
balance-available = Available
balance-reserved = Reserved
balance-statement = Statement
balance-statement-empty = No change of the balance yet.
balance-type = Type
balance-after = Balance after
balance-source = Source
code-order_captured = order_captured
code-payout = payout
code-payout_returned = payout_returned
code-refund = refund
code-refund_returned = refund_returned
code-top_up = top_up
code-reservation = reservation
code-reservation_released = reservation_released
code-order = order
code-reversal = reversal
## Page titles (app/src/titles.rs): what the page is, then the console's name
page-title = { $page } · Kaadxpay console
title-request = Request { $id }
title-run = Reconciliation run { $id }

## Audit log actions and object types, idempotency recovery points and partner calls
## (app/src/vocabulary.rs; in English the code itself)
action-user-signed_in = user.signed_in
action-user-sign_in_failed = user.sign_in_failed
action-member-invited = member.invited
action-member-joined = member.joined
action-member-role_changed = member.role_changed
action-member-removed = member.removed
action-member-invitation_revoked = member.invitation_revoked
action-api_key-created = api_key.created
action-api_key-rolled = api_key.rolled
action-api_key-revoked = api_key.revoked
action-webhook_endpoint-created = webhook_endpoint.created
action-webhook_endpoint-updated = webhook_endpoint.updated
action-webhook_endpoint-deleted = webhook_endpoint.deleted
action-webhook_endpoint-secret_rotated = webhook_endpoint.secret_rotated
action-two_factor-enrolled = two_factor.enrolled
action-two_factor-reset = two_factor.reset
action-two_factor-requirement_changed = two_factor.requirement_changed
action-payout-created = payout.created
action-payout-approved = payout.approved
action-payout-rejected = payout.rejected
action-payout-cancelled = payout.cancelled
action-refund-created = refund.created
action-payout_threshold-changed = payout_threshold.changed
action-support-viewed = support.viewed
action-order-captured = order.captured
action-order-cancelled = order.cancelled
action-webhook_endpoint-test_sent = webhook_endpoint.test_sent
action-webhook_endpoint-recovered = webhook_endpoint.recovered
action-event-redelivered = event.redelivered
action-reconciliation-run_started = reconciliation.run_started
action-two_factor-step_up = two_factor.step_up
action-two_factor-recovery_code_used = two_factor.recovery_code_used
object-user = user
object-member = member
object-invitation = invitation
object-api_key = api_key
object-idempotency_key = idempotency_key
object-webhook_endpoint = webhook_endpoint
object-event = event
object-payout = payout
object-payout_threshold = payout_threshold
object-order = order
object-refund = refund
object-top_up = top_up
object-reversal = reversal
object-merchant = merchant
object-reconciliation_run = reconciliation_run
recovery-point-started = started
recovery-point-finished = finished
partner-call-create = create
partner-call-status = status
partner-call-listing = listing
reconciliation-action-reversed = reversed
reconciliation-action-already_reversed = already_reversed
reconciliation-action-refused = refused
reconciliation-action-failed = failed
reconciliation-action-in_progress = in_progress
reconciliation-action-resolved = resolved
reconciliation-action-not_reversed = not_reversed
partner-problem-own_transfer = own_transfer
partner-problem-not_reversible = not_reversible
partner-problem-timeout = timeout
partner-problem-connection = connection
partner-problem-bad_answer = bad_answer
partner-problem-unprocessable = unprocessable
partner-problem-in_flight = in_flight
partner-problem-server_error = server_error
partner-problem-client_error = client_error
partner-problem-refused = refused
partner-answer-transfer = transfer { $transfer } { $status }
partner-answer-problem = { $problem }: { $detail }
latency-ms = { $ms } ms
http-status = HTTP { $status }
field-url = URL
partner-problem-account_closed = account_closed
reconciliation-action-claimed = claimed
reconciliation-action-pending = pending

## Profile (/settings/profile): the user's own time zone
nav-profile = Profile
profile-time-zone = Time zone
profile-time-zone-hint = Every time in the console is shown in this time zone, with its name. CSV exports stay in UTC.
profile-save = Save
profile-saved = Time zone saved: times are now shown in { $zone }.
profile-refused = Choose a time zone from the list.

## The API's error codes (app/src/vocabulary.rs; in English the code itself)
error-unauthorized = unauthorized
error-forbidden = forbidden
error-invalid_request = invalid_request
error-idempotency_key_missing = idempotency_key_missing
error-idempotency_key_invalid = idempotency_key_invalid
error-idempotency_request_in_progress = idempotency_request_in_progress
error-idempotency_key_reused = idempotency_key_reused
error-resource_missing = resource_missing
error-invalid_state_transition = invalid_state_transition
error-insufficient_funds = insufficient_funds
error-amount_exceeds_refundable = amount_exceeds_refundable
error-method_not_allowed = method_not_allowed
error-request_too_large = request_too_large
error-request_timeout = request_timeout
error-service_unavailable = service_unavailable
error-internal_error = internal_error
error-invalid_signature = invalid_signature
error-not_allowed = not_allowed
moment-delivery-network-error = network error
code-accepted = accepted
step-up-body = This change needs a recent authentication code. Enter the current code from your app (or a recovery code): the form comes back as you filled it, and nothing is done until you submit it.
step-up-confirming = You are confirming a change on: { $what }.

## The repeat guard (/repeat)
repeat-title = This looks like a repeat
repeat-body = You did the same from the console a few minutes ago, with another form.
repeat-first = See the first one
repeat-nothing-done = Nothing was done this time. If you mean to do it once more, press the button.
repeat-again = Do it again
repeat-nothing = Nothing to repeat

## Destructive actions, confirmed first (/confirm), and what was done
confirm-button = Confirm
confirm-back = Go back without doing it
confirm-nothing = Nothing to confirm
confirm-revoke-api-key = Revoke this API key?
confirm-revoke-api-key-body = API key { $id } stops working now: every program that uses it is refused from then on. This cannot be undone.
confirm-delete-endpoint = Delete this webhook endpoint?
confirm-delete-endpoint-body = Endpoint { $id } is deleted: it receives no more events and its deliveries stop. This cannot be undone.
confirm-rotate-secret = Rotate this endpoint's secret?
confirm-rotate-secret-body = Endpoint { $id } gets a new signing secret, shown once; the old one keeps signing for the overlap you chose, then stops.
confirm-remove-member = Remove this member?
confirm-remove-member-body = Member { $id } leaves the team and can no longer sign in to this merchant.
confirm-revoke-invitation = Revoke this invitation?
confirm-revoke-invitation-body = Invitation { $id } stops working: its link no longer lets anyone join.
confirm-reject-payout = Reject this payout?
confirm-reject-payout-body = Payout { $id } is rejected: it is not paid, and its amount goes back to the available balance.
confirm-cancel-payout = Cancel this payout?
confirm-cancel-payout-body = Payout { $id } is cancelled: it is not paid, and its amount goes back to the available balance.
confirm-cancel-order = Cancel this order?
confirm-cancel-order-body = Order { $id } is cancelled and can no longer be captured.
done-revoke-api-key = The API key was revoked: it no longer works.
done-delete-endpoint = The webhook endpoint was deleted.
done-rotate-secret = The endpoint's secret was rotated.
done-remove-member = The member was removed from the team.
done-revoke-invitation = The invitation was revoked.
done-reject-payout = The payout was rejected; its amount is available again.
done-cancel-payout = The payout was cancelled; its amount is available again.
done-cancel-order = The order was cancelled.
done-payout-created = The payout was created.
done-refund-created = The refund was created.
done-payout-approved = The payout was approved.
done-threshold-saved = The approval threshold was saved.
done-threshold-removed = The approval threshold was removed.
done-order-captured = The order was captured.
done-endpoint-added = The webhook endpoint was added.
done-endpoint-disabled = The webhook endpoint was disabled: nothing is sent to it until it is enabled.
done-endpoint-enabled = The webhook endpoint was enabled.
done-test-event-sent = A test event was sent to the endpoint.
done-deliveries-recovered = The endpoint's failed deliveries are being delivered again.
done-event-redelivered = The event is being delivered again.
done-reconciliation-run = Reconciliation was run.
done-api-key-created = The API key was created.
done-api-key-rolled = The API key was rolled.
done-invitation-accepted = You joined the team.
done-role-changed = The member's role was changed.
done-two-factor-required = Two-step sign-in is now required of every member.
done-two-factor-not-required = Two-step sign-in is no longer required of every member.
copy = Copy
copy-done = Copied

## Approvals (/payouts/approvals)
threshold-alone = Saved, but no other member could approve a payout: payouts at or above this threshold would wait for approval with nobody to give it. Invite a member who may create payouts (owner, admin or finance), or remove the threshold.
approvals-title = Payouts awaiting your approval
approvals-none = No payout is waiting for your decision.
nav-approvals = Approvals ({ $count })

## Add funds (/balance/add-funds): money in, as top-ups
add-funds = Add funds
add-funds-lead = Send a bank transfer to this account with this reference. The money is added to your balance as a top-up once the partner bank receives it.
add-funds-statement = See every top-up in the balance's statement
funding-reference = Reference
funding-reference-hint = Only this reference makes the money yours: write it exactly as shown (spaces and dashes do not matter).
top-ups = Top-ups
top-up = Top-up
top-up-incoming = Partner's incoming transfer
top-ups-empty = No money has come in yet.
simulate-incoming = Simulate incoming transfer
simulate-incoming-hint = Test mode: the partner bank simulator receives this amount with your reference, as if someone had sent it. It lands as a top-up a moment later.
simulate-incoming-sent = The partner bank received { $amount }. It is added to your balance as a top-up in a moment.
