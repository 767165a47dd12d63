# 控制台简体中文文案。每个 id 都必须在 en/main.ftl 中存在（app/src/i18n.rs 中有测试）。
# 术语以 docs/glossary.zh-CN.md 为准：提现 (payout)、订单 (order)、幂等键 (idempotency key)、
# 对账 (reconciliation)、商户 (merchant)、端点 (endpoint)、请款 (capture)、退回 (returned)、
# 撤回 (reversal of a duplicate)、两步验证 (two-step sign-in)、客服 (support staff)；称呼一律用“您”。

none = 无
none-yet = 暂无
not-yet = 尚无
yes = 是
no = 否

## Navigation and the language switch
nav-main = 主导航
nav-overview = 概览
nav-payouts = 提现
nav-orders = 订单
nav-keys = 幂等键
nav-requests = 请求日志
nav-webhooks = Webhook
nav-reconciliation = 对账
nav-api-keys = API 密钥
nav-team = 团队
nav-audit = 审计日志
nav-security = 安全
nav-support = 客服
nav-sign-out = 退出登录
nav-language = 语言
nav-menu = 菜单

## Fields used on more than one page
field-status = 状态
field-amount = 金额
field-currency = 币种
field-account-holder = 收款人姓名
field-iban = IBAN
field-idempotency-key = 幂等键
field-created = 创建时间
field-expires = 过期时间
field-description = 描述
field-error = 错误
field-email = 邮箱
field-password = 密码
field-authentication-code = 验证码

## List filters
filter-any = 全部
filter-from = 起始日期
filter-to = 截止日期
filter-submit = 筛选
filter-refused-day = 日期须为具体某一天，例如 2026-12-04。
filter-refused-status = 状态须为 HTTP 状态码，例如 201 或 422。
filter-refused-action = 请从列表中选择一个操作。
filter-refused-verdict = 请从列表中选择一个判定结果。
filter-refused-page = 该页已不存在，请从第一页开始查看。
filter-refused = 无法识别这些筛选条件，请修改后重试。
pager-next = 下一页 →
export-csv = 导出 CSV

## Pages that cannot be shown
failure-title = 出错了
failure-body = 页面未能加载。请稍后刷新；您所做的操作均未丢失。
merchant-page-title = 商户页面
merchant-page-before = 此页面仅显示单个商户的数据。客服可在
merchant-page-after = 中查找任意商户的幂等键、提现和订单。
not-found-title = 页面不存在
not-found-before = 这里什么也没有。
not-found-link = 返回控制台首页
not-found-after = 。

## Answers outside the pages: refused forms and exports (their HTTP status says the rest)
notice-refused-title = 无法执行此操作
notice-form-expired = 此表单已过期或并非来自本站，请刷新页面后重试。
notice-failure = 服务端出错了，您所做的操作均未丢失。请返回后重试。
notice-export-for-merchant-users = 此列表仅供商户用户导出。
notice-export-sign-in = 请先登录再导出。
forbidden-manage-orders = 您的角色无权请款或取消订单（所有者、管理员和财务可以）。请联系团队的所有者或管理员。
forbidden-manage-integrations = 您的角色无权管理 Webhook 和 API 密钥（所有者、管理员和开发者可以）。请联系团队的所有者或管理员。

## The error codes' fixed sentences
refusal-insufficient-funds = 可用余额低于提现金额。
refusal-exceeds-refundable = 超出该订单剩余的可退款金额。
refusal-available = 可用余额低于提现金额：可用 { $available }。
refusal-name = 请输入一行名称，最多 100 个字符。
refusal-amount = 请按币种单位输入金额，例如 12.50（日元须为整数）。
refusal-currency = 请选择所列币种之一。
refusal-account-holder = 请输入收款人姓名（不超过 140 个字符）。
refusal-iban = 请输入 IBAN：国家代码、两位校验码及最多 30 位字母或数字。
refusal-date = 请按 YYYY-MM-DD 格式输入日期。
refusal-url = 请输入端点 URL：以 http(s) 开头，且主机为本服务可访问的地址。
refusal-events = 请填写列表中的事件类型，以逗号分隔；留空则接收全部事件。
refusal-overlap = 请选择旧密钥的保留有效期。
refusal-event-type = 请从列表中选择一种事件类型。
refusal-since = 请输入要从哪一天起恢复失败的投递。
refusal-invalid-request = 表单中有值缺失或无效。
refusal-form-expired = 此表单已过期，请刷新页面后重试。
refusal-moved-on = 状态已发生变化，请刷新页面查看最新情况。
refusal-missing = 该对象已不存在。
refusal-not-allowed = 非测试模式下，仅客服可执行此操作。
refusal-other = 操作未成功，请刷新页面后重试。

## Test mode
test-mode-region = 测试模式
test-mode-title = 测试模式。
test-mode-body = 合作银行为模拟器：不会发生真实资金划转。提现到下列 IBAN 会得到固定结果；提现到其他有效 IBAN 均会成功。
test-mode-outcome = 结果
test-mode-paid = 已支付
test-mode-refused = 被合作银行拒绝（422 account_closed）：提现失败，金额退回余额
test-mode-returned = 已支付，5 秒后被银行退回：提现状态为已退回，金额退回余额
test-mode-slow = 首次调用超时（转账已创建，但响应丢失）；重试得到同一笔转账：只支付一次
test-mode-duplicated = 被合作银行重复记账：提现只支付一次，重复的转账由对账发现并撤回
test-mode-held = 在合作银行处挂起（在途），直到调用 POST /_sim/transfers/{"{"}id{"}"}/release 放行，然后支付

## Codes the backend stores, as shown to people
code-pending = 待处理
code-in_transit = 在途
code-paid = 已支付
code-succeeded = 已成功
code-failed = 失败
code-reversed = 已退回
code-captured = 已请款
code-cancelled = 已取消
code-in_progress = 处理中
code-completed = 已完成
code-expired = 已过期
code-running = 运行中
code-partial = 部分完成
code-attention = 需关注
code-enabled = 已启用
code-disabled = 已停用
code-delivered = 已送达
code-new = 新请求
code-replayed = 重放
code-mismatch = 不匹配
code-api = API
code-console = 控制台
code-matched = 已匹配
code-duplicate = 重复
code-missing = 缺失
code-unknown = 未知
code-amount_mismatch = 金额不符
code-status_mismatch = 状态不符
code-unknown_incoming = 未识别来账
code-already_reversed = 此前已撤回
code-claimed = 已受理
code-refused = 被拒绝
code-resolved = 已解决
subject-key = 幂等键
subject-payout = 提现
subject-order = 订单
role-owner = 所有者
role-admin = 管理员
role-developer = 开发者
role-finance = 财务
role-viewer = 查看者

## Sign in
login-submit = 登录
login-invalid = 登录凭据不正确，请检查后重试。
login-throttled = 登录失败次数过多，请 15 分钟后再试。
login-expired = 表单已过期，请重新登录。
login-verify = 验证
login-code-hint = 请输入身份验证器应用显示的 6 位验证码，或一个恢复码。
login-code-invalid = 验证码不正确或已被使用。请输入应用当前显示的验证码，或一个未用过的恢复码。

## Overview
home-balance = 余额
home-no-balance = 暂无余额：请款一笔订单即可入账。
home-outcomes = 近 24 小时幂等结果
home-recent-payouts = 最近提现
home-recent-orders = 最近订单
chart-new = 新请求
chart-replayed = 重放
chart-in-progress = 处理中
chart-mismatch = 不匹配
chart-bar = { $hour }：{ $count } 个{ $series }
chart-summary = 近 24 小时共 { $total } 个幂等请求
chart-caption = { $summary }。

## Payouts
payout-payout = 提现
payout-new = 新建提现
payout-submit = 提现
payout-paying-out = 正在提现…
forbidden-create-payouts = 您的角色无权创建提现（所有者、管理员和财务可以）。请联系团队的所有者或管理员。
payouts-empty = 暂无提现。点击“新建提现”将余额提现到银行账户。
payout-available = 可提现余额
payout-partner-transfer = 合作银行转账
payout-failure = 失败原因
payout-updated = 更新时间
payout-all = 全部提现

## Orders
order-order = 订单
orders-empty = 暂无订单。请使用您的 API 密钥调用 POST /v1/orders 创建订单。
order-capture = 请款
order-cancel = 取消
order-refund = 退款
refund-new = 为此订单退款
refund-refunds = 退款记录
refund-refund = 退款
refund-amount-hint = 剩余全部金额
order-all = 全部订单

## Idempotency keys
key-title = 幂等键
key-look-up = 查询
key-no-record = 未找到此幂等键的记录。幂等键按商户区分，保留 24 小时。
key-invalid = 这不是幂等键：幂等键由 1 到 255 个可见 ASCII 字符组成，不含空格。
key-live = 自 { $since } 起处理中：本页面会自动刷新。
key-key = 幂等键
key-endpoint = 接口
key-request-hash = 请求哈希
key-resource = 关联资源
key-recovery-point = 恢复点
key-attempts = 尝试次数
key-last-change = 最近变更
key-stored-response = 已存储的响应

## Request log
requests-empty = 没有匹配的请求。请求发出几秒后会显示在这里。
requests-hint = 按请求 ID 或幂等键查询时，不限日期。
request-id = 请求 ID
request-time = 时间
request-route = 路由
request-verdict = 判定结果
request-latency = 耗时
request-request = 请求
request-its-timeline = （查看其时间线）
request-path = 路径
request-api-key = 操作方（API 密钥或成员）
request-door = 来源
request-client-address = 客户端地址
request-client-id = 客户端请求 ID
request-request-body = 请求体
request-response-body = 响应体
request-all = 全部请求

## Support and timelines
support-any-id = 任意 ID：请求、幂等键、提现、订单、事件、投递、转账、端到端标识或商户
support-search = 搜索
support-empty = 没有匹配结果。请尝试输入完整 ID，或扩大时间范围。
support-merchant = 商户
support-found = 结果
support-detail = 详情
timeline-title = 时间线
timeline-empty = 暂无任何记录。
timeline-of-key = 幂等键 { $key }
timeline-of-payout = 提现 { $id }
timeline-of-order = 订单 { $id }
timeline-read-only = 。只读。
timeline-search-again = 重新搜索

## Timelines: each moment's badge (in English the kind as the API names it) and its sentence,
## which in English is also the API's `summary` (keep it word for word)
moment-after-ms = +{ $ms } 毫秒
moment-after-s = +{ $s } 秒
moment-kind-request = 请求
moment-kind-record = 记录
moment-kind-payout = 提现
moment-kind-order = 订单
moment-kind-partner_call = 合作银行调用
moment-kind-partner_webhook = 合作银行通知
moment-kind-reconciliation = 对账
moment-kind-reversal = 撤回
moment-kind-event = 事件
moment-kind-delivery = 投递
moment-request-answered = { $route } 返回 { $outcome }，耗时 { $latency } 毫秒
moment-record-stored = 已为 { $endpoint } 存储记录
moment-record-changed = 记录状态：{ $status }
moment-record-failed = 记录状态：{ $status }（{ $error }）
moment-payout-created = 已创建提现：{ $money }，端到端标识 { $partner_key }
moment-order-created = 已创建订单：{ $money }
moment-partner-call = { $call }（端到端标识 { $partner_key }）：{ $answer }（{ $latency } 毫秒）
moment-partner-webhook = 转账 { $transfer } 的 { $event_type }
moment-reconciled = { $day } 对账：{ $item }{ $action }{ $transfer }
moment-reconciliation-action = ，{ $action }
moment-reconciliation-transfer = （转账 { $transfer }）
moment-reversal-state = 重复转账 { $transfer }，撤回状态：{ $state }
moment-duplicate-to-reverse = 重复转账：对账将撤回
moment-duplicate-reversed = 重复转账：对账已撤回
moment-duplicate-resolved = 重复转账：已人工处理
moment-event-sent = 已向商户发送 { $event_type }
moment-delivery-attempt = { $event_type } 投递至 { $url }：{ $answer }，耗时 { $latency } 毫秒
moment-delivery-http = 状态码 { $status }
moment-delivery-no-answer = 无响应

## Webhooks
webhooks-endpoints = 端点
webhooks-endpoint = 端点
webhooks-endpoint-url = 端点网址
webhooks-events = 事件
webhooks-events-placeholder = 全部，或如 payout.paid, payout.failed
webhooks-add = 添加端点
webhooks-actions = 操作
webhooks-no-endpoints = 暂无端点。请在上方添加，或使用 API 密钥调用 POST /v1/webhook-endpoints。
webhooks-test-event-for = { $id } 的测试事件
webhooks-overlap-for = { $id } 的旧密钥有效期
webhooks-failed-since-for = { $id } 的失败起始日期
webhooks-send-test = 发送测试事件
webhooks-overlap-24h = 旧密钥保留 24 小时
webhooks-overlap-1h = 旧密钥保留 1 小时
webhooks-overlap-7d = 旧密钥保留 7 天
webhooks-overlap-now = 旧密钥立即失效
webhooks-rotate = 轮换密钥
webhooks-recover = 恢复失败的投递
webhooks-enable = 启用
webhooks-disable = 停用
webhooks-delete = 删除
webhooks-redeliver = 重新投递
webhooks-reproduce = 用 curl 再次投递到 { $url }（刚刚签名：验证方在 5 分钟内接受）
api-keys-name = 名称
api-keys-prefix = 前缀
api-keys-access = 权限
api-keys-read-write = 读写
api-keys-read-only = 只读
api-keys-created = 创建时间
api-keys-last-used = 最近使用
api-keys-never = 从未
api-keys-expires = 失效时间
api-keys-create = 创建密钥
api-keys-acts-for = 代表
api-keys-for-me = 我（受我的角色限制）
api-keys-for-merchant = 商户
api-keys-roll = 轮换
api-keys-revoke = 吊销
api-keys-overlap-for = { $name } 在新密钥生效后继续可用的时长
api-keys-none = 还没有 API 密钥。
api-keys-secret-shown = 新密钥的明文（仅显示这一次）：请复制到您的集成配置中。
webhooks-verify-title = 在端点代码中验证投递
webhooks-verify-intro = 在解析之前，先对原始请求体校验签名。Standard Webhooks 的库（pip 或 npm 的 "standardwebhooks"）做的是同一件事；手写如下：
webhooks-secret-shown = 该端点的签名密钥（仅显示这一次）：
webhooks-recent-events = 最近事件
webhooks-no-events = 暂无事件：每次订单或提现变更时都会生成事件。
webhooks-event-created = 创建于 { $at }
webhooks-no-deliveries = 没有端点订阅此事件。
webhooks-delivery = 投递状态
webhooks-attempt = 投递尝试
webhooks-answer = 响应
webhooks-at = 时间

## Reconciliation
runs-test-mode = 测试模式：
runs-test-mode-body = 合作银行为模拟器。
runs-day-utc = 日期（UTC）
runs-run-now = 立即对账
runs-lead = 每天将合作银行的转账与提现逐笔匹配；若合作银行忽略了我们的幂等键而产生重复转账，会将其撤回一次（合作银行拒绝的撤回会一直重试直至完成）。若提现状态与其在合作银行的转账状态相矛盾（status_mismatch），该次对账需要关注：系统不会自动处理，由人工决定。
runs-empty = 暂无对账记录：每日任务会对前一天进行对账，也可运行 `kaadxpay reconcile --date YYYY-MM-DD`。
runs-run = 对账批次
runs-day = 对账日
runs-applied = 已执行
runs-run-at = 运行时间
run-summary = 对账日 { $day }，{ $mode }，{ $status }。
run-applied = 已执行处理
run-report-only = 仅报告
run-no-items = 本次对账没有条目。
run-kind = 类型
run-transfer = 转账
run-transfer-of = 提现或退款
run-action = 处理
run-all = 全部对账批次

## Team
team-role = 角色
team-invite = 邀请
team-members = 成员
team-joined = 加入时间
team-change = 变更
team-role-of = { $email } 的角色
team-change-role = 更改角色
team-remove = 移除
team-revoke-invitation = 撤销
team-invitations = 邀请
team-no-invitations = 没有待接受的邀请。
forbidden-manage-team = 您的角色无权管理团队（所有者和管理员可以）。请联系团队的所有者或管理员。
team-invitation-mailed = 邀请邮件已发送。邮件中的链接仅可使用一次，7 天内有效。
team-invitation-unsent = 邀请邮件未能发送；请自行将下面的链接发给对方。
team-invitation-made = 邀请已创建。请将此链接发送给新成员；链接仅可使用一次，7 天内有效，且仅显示这一次：
team-refusal-role = 您的角色无权授予该角色，或无权更改该成员。
team-refusal-last-owner = 团队至少需要保留一位所有者：请先将另一位成员设为所有者。
team-refusal-unknown-member = 该成员已不在团队中。
team-refusal-taken = 该邮箱已有账户。
team-refusal-email = 请输入邮箱地址。
team-refusal-password = 请设置至少 8 个字符的密码。
team-invitation-gone = 此邀请已过期或已被使用。请重新申请邀请。
team-join-title = 加入团队
team-invited-as = 您受邀以
team-invited-with = 身份加入，登录邮箱为
team-invited-end = 。设置密码即可加入。
team-join = 加入

# 审计日志 (/settings/audit)
forbidden-see-audit-log = 您的角色无权查看审计日志（所有者和管理员可以）。请联系团队的所有者或管理员。
audit-when = 时间
audit-who = 操作者
audit-action = 操作
audit-object = 对象
audit-address = 地址
audit-change = 之前 → 之后
audit-actor-user = 成员
audit-actor-api-key = API 密钥
audit-actor-support = 客服
audit-actor-operator = 运维人员
audit-empty = 没有符合条件的记录。账户的每项更改、每次登录以及客服的每次查阅都记录在此。
audit-hint = 记录保留一年，且永远无法更改。

## 大额提现审批（/payouts/{id}、/settings/payouts）
nav-payout-settings = 提现审批
code-pending_approval = 待审批
code-rejected = 已拒绝
forbidden-manage-thresholds = 您的角色无权修改审批阈值（所有者和管理员可以）。请联系团队的所有者或管理员。
notice-own-payout = 这笔提现是您创建的，您不能批准或拒绝它：须由另一位有权创建提现的成员处理。
payout-created-by = 创建者
payout-decided-by = 批准或拒绝者
approval-awaiting = 这笔提现达到或超过审批阈值：在另一位成员批准之前不会转出任何资金。拒绝后金额将退回余额。
approval-awaiting-other = 这笔提现正在等待另一位有权创建提现的成员（而非创建者）审批。
approval-approve = 批准
approval-reject = 拒绝
approval-cancel = 取消提现
threshold-hint = 金额达到或超过其币种阈值的提现将处于待审批状态，直到另一位成员批准。未设置阈值则无需审批。金额留空即可删除该币种的阈值。
threshold-amount = 审批阈值
threshold-save = 保存
threshold-current = 当前阈值
threshold-none = 尚未设置阈值：任何提现都无需审批。
# 两步验证 (/settings/security) 与再次验证身份 (/step-up)
security-set-up = 设置两步验证
security-scan = 用身份验证器应用（如 Google Authenticator、1Password 或 Authy）扫描此二维码，然后输入它显示的验证码。
security-qr = 供身份验证器应用扫描的密钥二维码
security-or-type = 或在应用中手动输入此密钥：
security-turn-on = 开启两步验证
security-recovery-codes = 两步验证已开启。请把这些恢复码保存在安全的地方：每个恢复码可在没有手机时登录一次，且只显示这一次。
security-on = 两步验证自 { $since } 起已开启；剩余 { $left } 个恢复码。如果丢失手机，请用恢复码登录，或请运维人员重置。
security-required-notice = 您的团队要求开启两步验证：请先完成设置。
security-require-all = 要求所有成员开启两步验证
security-save = 保存
step-up-title = 确认是您本人

# 余额页面及其流水 (/balance)。
nav-balance = 余额
balance-available = 可用
balance-reserved = 预留
balance-statement = 余额流水
balance-statement-empty = 余额尚无变动。
balance-type = 类型
balance-after = 变动后余额
balance-source = 来源
code-order_captured = 订单请款
code-payout = 提现
code-payout_returned = 提现退回
code-refund = 退款
code-refund_returned = 退款退回
code-top_up = 充值
code-reservation = 预留
code-reservation_released = 预留释放
code-order = 订单
code-reversal = 退回
## 页面标题（app/src/titles.rs）：页面名称，然后是控制台名称
page-title = { $page } · Kaadxpay 控制台
title-request = 请求 { $id }
title-run = 对账批次 { $id }

## 审计日志的操作与对象类型、幂等恢复点、合作银行调用（app/src/vocabulary.rs）
action-user-signed_in = 登录成功
action-user-sign_in_failed = 登录失败
action-member-invited = 邀请成员
action-member-joined = 成员加入
action-member-role_changed = 更改成员角色
action-member-removed = 移除成员
action-member-invitation_revoked = 撤销邀请
action-api_key-created = 创建 API 密钥
action-api_key-rolled = 轮换 API 密钥
action-api_key-revoked = 吊销 API 密钥
action-webhook_endpoint-created = 添加 Webhook 端点
action-webhook_endpoint-updated = 修改 Webhook 端点
action-webhook_endpoint-deleted = 删除 Webhook 端点
action-webhook_endpoint-secret_rotated = 轮换端点签名密钥
action-two_factor-enrolled = 开启两步验证
action-two_factor-reset = 重置两步验证
action-two_factor-requirement_changed = 更改两步验证要求
action-payout-created = 创建提现
action-payout-approved = 批准提现
action-payout-rejected = 拒绝提现
action-payout-cancelled = 取消提现
action-refund-created = 创建退款
action-payout_threshold-changed = 更改审批阈值
action-support-viewed = 客服查阅
action-order-captured = 订单请款
action-order-cancelled = 取消订单
action-webhook_endpoint-test_sent = 发送测试事件
action-webhook_endpoint-recovered = 恢复失败的投递
action-event-redelivered = 重新投递事件
action-reconciliation-run_started = 发起对账
action-two_factor-step_up = 再次验证身份
action-two_factor-recovery_code_used = 使用恢复码
object-user = 用户
object-member = 成员
object-invitation = 邀请
object-api_key = API 密钥
object-idempotency_key = 幂等键
object-webhook_endpoint = Webhook 端点
object-event = 事件
object-payout = 提现
object-payout_threshold = 审批阈值
object-order = 订单
object-refund = 退款
object-top_up = 充值
object-reversal = 退回
object-merchant = 商户
object-reconciliation_run = 对账批次
recovery-point-started = 已开始
recovery-point-finished = 已结束
partner-call-create = 创建转账
partner-call-status = 查询状态
partner-call-listing = 查询当日转账列表
reconciliation-action-reversed = 已撤回
reconciliation-action-already_reversed = 此前已撤回
reconciliation-action-refused = 合作银行拒绝撤回
reconciliation-action-failed = 撤回未成功，将重试
reconciliation-action-in_progress = 另一批次处理中
reconciliation-action-resolved = 已人工处理
reconciliation-action-not_reversed = 不撤回
partner-problem-own_transfer = 本笔提现自己的转账
partner-problem-not_reversible = 不可撤回
partner-problem-timeout = 超时
partner-problem-connection = 无法连接
partner-problem-bad_answer = 响应无法识别
partner-problem-unprocessable = 请求被拒绝
partner-problem-in_flight = 正在处理中
partner-problem-server_error = 合作银行服务出错
partner-problem-client_error = 请求出错
partner-problem-refused = 被拒绝
partner-answer-transfer = 转账 { $transfer }，状态：{ $status }
partner-answer-problem = { $problem }：{ $detail }
latency-ms = { $ms } 毫秒
http-status = 状态码 { $status }
field-url = 网址
partner-problem-account_closed = 账户已关闭
reconciliation-action-claimed = 正在撤回
reconciliation-action-pending = 待撤回

## 个人设置（/settings/profile）：用户自己的时区
nav-profile = 个人设置
profile-time-zone = 时区
profile-time-zone-hint = 控制台中的所有时间都按此时区显示，并注明时区名称。CSV 导出仍使用 UTC。
profile-save = 保存
profile-saved = 时区已保存：现在按 { $zone } 显示时间。
profile-refused = 请从列表中选择一个时区。

## API 错误码（app/src/vocabulary.rs）
error-unauthorized = 未授权
error-forbidden = 无权限
error-invalid_request = 请求无效
error-idempotency_key_missing = 缺少幂等键
error-idempotency_key_invalid = 幂等键无效
error-idempotency_request_in_progress = 同一幂等键的请求正在处理
error-idempotency_key_reused = 幂等键已用于其他请求
error-resource_missing = 资源不存在
error-invalid_state_transition = 当前状态不允许此操作
error-insufficient_funds = 余额不足
error-amount_exceeds_refundable = 超出可退款金额
error-method_not_allowed = 方法不允许
error-request_too_large = 请求过大
error-request_timeout = 请求超时
error-service_unavailable = 服务暂不可用
error-internal_error = 内部错误
error-invalid_signature = 签名无效
error-not_allowed = 不允许
moment-delivery-network-error = 网络错误
code-accepted = 已受理
step-up-body = 此操作需要最近输入过的验证码。请输入应用当前显示的验证码（或一个恢复码）：表单会按您填写的内容返回，在您提交之前不会执行任何操作。
step-up-confirming = 您正在确认以下页面上的更改：{ $what }。

## 重复提交提醒 (/repeat)
repeat-title = 这看起来是重复操作
repeat-body = 您几分钟前已在控制台用另一张表单做过相同的操作。
repeat-first = 查看第一次的结果
repeat-nothing-done = 这次没有执行任何操作。如果确实要再做一次，请按下面的按钮。
repeat-again = 再做一次
repeat-nothing = 没有可重复的操作

## 危险操作先确认 (/confirm)，以及已完成的操作
confirm-button = 确认
confirm-back = 返回，不执行
confirm-nothing = 没有需要确认的操作
confirm-revoke-api-key = 吊销此 API 密钥？
confirm-revoke-api-key-body = API 密钥 { $id } 将立即失效：此后使用它的程序都会被拒绝。此操作无法撤销。
confirm-delete-endpoint = 删除此 Webhook 端点？
confirm-delete-endpoint-body = 端点 { $id } 将被删除：不再接收任何事件，投递随之停止。此操作无法撤销。
confirm-rotate-secret = 轮换此端点的签名密钥？
confirm-rotate-secret-body = 端点 { $id } 将获得新的签名密钥（仅显示一次）；旧密钥在您选择的过渡期内继续签名，之后失效。
confirm-remove-member = 移除此成员？
confirm-remove-member-body = 成员 { $id } 将离开团队，无法再登录此商户。
confirm-revoke-invitation = 撤销此邀请？
confirm-revoke-invitation-body = 邀请 { $id } 将失效：其链接不能再用于加入团队。
confirm-reject-payout = 拒绝此提现？
confirm-reject-payout-body = 提现 { $id } 将被拒绝：不会支付，金额退回可用余额。
confirm-cancel-payout = 取消此提现？
confirm-cancel-payout-body = 提现 { $id } 将被取消：不会支付，金额退回可用余额。
confirm-cancel-order = 取消此订单？
confirm-cancel-order-body = 订单 { $id } 将被取消，之后无法再收款。
done-revoke-api-key = API 密钥已吊销，已不能再使用。
done-delete-endpoint = Webhook 端点已删除。
done-rotate-secret = 端点的签名密钥已轮换。
done-remove-member = 成员已从团队中移除。
done-revoke-invitation = 邀请已撤销。
done-reject-payout = 提现已拒绝，金额已退回可用余额。
done-cancel-payout = 提现已取消，金额已退回可用余额。
done-cancel-order = 订单已取消。
done-payout-created = 提现已创建。
done-refund-created = 退款已创建。
done-payout-approved = 提现已批准。
done-threshold-saved = 审批阈值已保存。
done-threshold-removed = 审批阈值已删除。
done-order-captured = 订单已请款。
done-endpoint-added = Webhook 端点已添加。
done-endpoint-disabled = Webhook 端点已停用：启用前不会向其发送任何内容。
done-endpoint-enabled = Webhook 端点已启用。
done-test-event-sent = 测试事件已发送至该端点。
done-deliveries-recovered = 该端点失败的投递正在重新投递。
done-event-redelivered = 该事件正在重新投递。
done-reconciliation-run = 对账已完成。
done-api-key-created = API 密钥已创建。
done-api-key-rolled = API 密钥已轮换。
done-invitation-accepted = 您已加入团队。
done-role-changed = 成员的角色已更改。
done-two-factor-required = 现在要求每位成员使用两步验证。
done-two-factor-not-required = 不再要求每位成员使用两步验证。
copy = 复制
copy-done = 已复制

## 审批 (/payouts/approvals)
threshold-alone = 已保存，但没有其他成员可以审批提现：达到或超过此阈值的提现将等待审批，却无人可以审批。请邀请一位可以创建提现的成员（所有者、管理员或财务），或删除此阈值。
approvals-title = 等待您审批的提现
approvals-none = 没有等待您决定的提现。
nav-approvals = 审批（{ $count }）

## 充值（/balance/add-funds）：来账记为充值
add-funds = 充值
add-funds-lead = 请向以下账户转账，并在付款附言中填写此参考号。合作银行收到款项后，金额将作为充值计入您的余额。
add-funds-statement = 在余额流水中查看每笔充值
funding-reference = 付款附言
funding-reference-hint = 只有填写此参考号，款项才会计入您的账户：请按所示准确填写（空格和连字符不影响匹配）。
top-ups = 充值记录
top-up = 充值
top-up-incoming = 合作银行来账
top-ups-empty = 尚无来账。
simulate-incoming = 模拟来账
simulate-incoming-hint = 测试模式：合作银行模拟器将以您的参考号收到这笔款项，如同有人向您转账。片刻后即作为充值入账。
simulate-incoming-sent = 合作银行已收到 { $amount }，稍后将作为充值计入您的余额。
