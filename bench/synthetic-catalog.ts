/**
 * A deterministic synthetic tool catalog: N tools over 25 made-up servers (crm, tickets,
 * payments, k8s, …) that look like what real MCP servers publish — CRUD tools per entity plus
 * a few domain actions, varied descriptions, parameters with descriptions, enums, nested
 * objects, and on some servers the same `$defs` block repeated in every tool (as servers that
 * generate schemas from typed models do). The same options always give the same catalog: the
 * only randomness is a seeded PRNG.
 *
 *   import { syntheticCatalog } from '../bench/synthetic-catalog.js';
 *   const servers = syntheticCatalog({ tools: 500 });
 */
import type { Tool } from '@modelcontextprotocol/client';

/** What {@link syntheticCatalog} generates: how many tools in all, and the PRNG seed. */
export interface SyntheticCatalogOptions {
  readonly tools: number;
  readonly seed?: number;
}

/** One made-up server and the tools it offers, in the order it would list them. */
export interface SyntheticServer {
  readonly server: string;
  readonly tools: Tool[];
}

/**
 * The 25 domains. A server line is `name (product)`, plus `defs` when its schemas come from
 * typed models and so repeat one `$defs` block in every tool. Under it, an entity line is
 * `entity: field, field [status, status]` and an action line is `action(param, param) Summary`.
 */
const DOMAINS_TEXT = `
crm (CRM) defs
  contact: email, phone, company_id, job_title [lead, prospect, customer, churned]
  company: domain, industry, employee_count [active, inactive]
  deal: amount, stage, close_date, contact_id [open, won, lost]
  note: body, contact_id
  log_call(contact_id, duration_minutes, outcome, notes) Log a phone call with a contact and its outcome
  merge_contacts(primary_id, duplicate_id) Merge two duplicate contacts into one record
tickets (help desk)
  ticket: subject, body, priority, requester_email [new, open, pending, solved, closed]
  comment: ticket_id, body, public
  queue: name, sla_hours
  macro: title, actions
  assign_ticket(ticket_id, assignee_id, group_id) Assign a ticket to an agent or a group
  escalate_ticket(ticket_id, tier, reason) Escalate a ticket to the next support tier with a reason
  merge_tickets(target_id, source_ids) Merge duplicate tickets into one
payments (payments) defs
  charge: amount, currency, customer_id, description [pending, succeeded, failed, refunded]
  customer: email, name, default_payment_method
  payout: amount, destination, arrival_date [pending, paid, failed]
  dispute: charge_id, reason, evidence [open, won, lost]
  refund_charge(charge_id, amount, reason) Refund all or part of a captured charge
  capture_charge(charge_id, amount) Capture a previously authorized charge
k8s (Kubernetes cluster)
  pod: namespace, image, node_name [pending, running, succeeded, failed]
  deployment: namespace, replicas, image
  service: namespace, port, selector
  namespace: labels
  scale_deployment(namespace, deployment_name, replicas) Change the number of replicas of a deployment
  get_pod_logs(namespace, pod_name, container, tail_lines) Fetch container logs from a pod, optionally following them
  rollout_restart(namespace, deployment_name) Restart every pod of a deployment with a rolling update
git (code hosting)
  repository: owner, name, visibility, default_branch [public, private, internal]
  issue: repository, title, body, labels [open, closed]
  pull_request: repository, head, base, title [open, merged, closed]
  branch: repository, name, sha
  merge_pull_request(repository, number, merge_method) Merge a pull request using merge, squash or rebase
  request_review(repository, number, reviewers) Request a review of a pull request from users or teams
calendar (calendar)
  event: calendar_id, summary, start, end, location [confirmed, tentative, cancelled]
  calendar: summary, time_zone
  attendee: event_id, email, response_status
  find_free_slots(emails, duration_minutes, window_start, window_end) Find time slots when all the given people are free
  respond_to_invite(event_id, response) Accept, decline or tentatively accept a meeting invitation
email (mailbox)
  message: to, subject, body, thread_id [unread, read, archived]
  draft: to, subject, body
  label: name, color
  thread: subject, participants
  send_message(to, cc, subject, body, attachments) Send an email to one or more recipients
  reply_to_thread(thread_id, body, reply_all) Reply to the latest message in an email thread
chat (team chat)
  channel: name, topic, is_private [active, archived]
  message: channel_id, text, thread_ts
  reaction: message_id, emoji
  user: display_name, email, status
  post_message(channel_id, text, thread_ts) Post a message to a channel or a thread
  set_status(text, emoji, expires_at) Set your status text and emoji
docs (document workspace)
  document: title, content, folder_id [draft, published]
  folder: name, parent_id
  permission: document_id, email, role
  share_document(document_id, emails, role) Share a document with people and give them a role
  export_document(document_id, format) Export a document as PDF, DOCX or Markdown
blob-storage (object storage)
  bucket: name, region, versioning
  object: bucket, key, content_type, size
  upload_object(bucket, key, content_base64, content_type) Upload bytes as an object into a bucket
  download_object(bucket, key, range) Download the content of an object
  presign_url(bucket, key, expires_in_seconds, method) Create a temporary signed URL for an object
sql (database)
  table: schema, name, columns
  view: schema, name, definition
  index: table, columns, unique
  run_query(sql, params, max_rows) Run a read-only SQL query and return rows
  explain_query(sql) Show the execution plan of a SQL query
  describe_table(schema, table) List columns, types and constraints of a table
analytics (product analytics)
  report: name, metrics, dimensions
  dashboard: name, widgets
  metric: name, definition, unit
  cohort: name, criteria
  run_report(report_id, date_range, granularity) Run a report over a date range and return the aggregated figures
  track_event(user_id, event_name, properties) Record a custom analytics event for a user
monitoring (observability)
  alert: monitor_id, severity, message [triggered, acknowledged, resolved]
  monitor: name, query, threshold
  incident: title, severity, commander [investigating, identified, resolved]
  silence: matchers, ends_at
  acknowledge_alert(alert_id, note) Acknowledge a firing alert so it stops paging
  query_metrics(expression, start, end, step) Query time series metrics with a PromQL-like expression
ci (CI/CD)
  pipeline: repository, branch, commit_sha [queued, running, passed, failed, cancelled]
  job: pipeline_id, name, stage
  artifact: job_id, path, size
  runner: name, tags, os
  retry_job(job_id) Retry a failed CI job
  cancel_pipeline(pipeline_id) Cancel a running pipeline and all its jobs
  trigger_pipeline(repository, branch, variables) Start a new pipeline run for a branch
dns (DNS)
  zone: name, nameservers
  record: zone_id, type, name, content, ttl
  purge_cache(zone_id, urls, purge_everything) Purge cached content for URLs or an entire zone
billing (subscription billing) defs
  invoice: customer_id, amount_due, due_date [draft, open, paid, void]
  subscription: customer_id, plan_id, quantity [trialing, active, past_due, canceled]
  plan: name, interval, price
  coupon: code, percent_off, duration
  void_invoice(invoice_id, reason) Void an open invoice so it can no longer be paid
  apply_coupon(subscription_id, coupon_code) Apply a discount coupon to a subscription
inventory (inventory)
  product: sku, name, price, category [active, discontinued]
  warehouse: name, address
  stock_level: product_id, warehouse_id, quantity
  supplier: name, email, lead_time_days
  adjust_stock(product_id, warehouse_id, delta, reason) Adjust the stock count of a product in a warehouse
shipping (shipping) defs
  shipment: from_address, to_address, weight, carrier [created, in_transit, delivered, exception]
  carrier: name, services
  parcel: length, width, height, weight
  track_shipment(tracking_number, carrier) Get tracking events for a shipment
  buy_label(shipment_id, rate_id) Buy a postage label for a shipment at a chosen rate
  get_rates(from_address, to_address, parcel) Compare shipping rates across carriers
hr (HR)
  employee: name, email, department_id, manager_id, start_date [active, on_leave, terminated]
  department: name, head_id
  time_off_request: employee_id, start_date, end_date, type [pending, approved, denied]
  approve_time_off(request_id, decision, comment) Approve or deny an employee time off request
  get_org_chart(manager_id, depth) Get the reporting lines under a manager
maps (maps)
  place: name, address, category, rating
  saved_list: name, place_ids
  geocode_address(address, country) Turn a street address into latitude and longitude
  get_directions(origin, destination, mode) Get driving, walking or transit directions between two places
  reverse_geocode(latitude, longitude) Turn coordinates into the nearest address
weather (weather)
  station: name, latitude, longitude
  weather_alert: region, severity, headline
  get_forecast(location, days, units) Get the hourly or daily forecast for a location
  get_current_conditions(location, units) Get the current temperature, wind and precipitation at a location
translate (translation)
  glossary: name, source_language, target_language, entries
  translate_text(text, target_language, source_language, formality) Translate text into another language
  detect_language(text) Detect which language a text is written in
notes (notes)
  note: title, body, notebook_id, tags [active, trashed]
  notebook: name, color
  tag: name
  pin_note(note_id) Pin a note to the top of its notebook
feature-flags (feature flag)
  flag: key, description, variations [on, off]
  segment: name, rules
  environment: key, color
  toggle_flag(flag_key, environment, enabled) Turn a feature flag on or off in one environment
  set_rollout(flag_key, environment, percentage, segment_id) Roll a flag out to a percentage of users or a segment
secrets (secrets vault)
  secret: path, value, description
  access_policy: name, rules
  rotate_secret(path, grace_period_hours) Rotate a secret: generate a new value and retire the old one
  read_secret_version(path, version) Read one specific version of a secret
`;

interface Entity {
  readonly name: string;
  readonly fields: readonly string[];
  readonly statuses: readonly string[];
}

interface Action {
  readonly name: string;
  readonly params: readonly string[];
  readonly summary: string;
}

interface Domain {
  readonly server: string;
  readonly product: string;
  readonly defs: boolean;
  readonly entities: Entity[];
  readonly actions: Action[];
}

const commaList = (text: string | undefined) =>
  (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

function parseDomains(text: string): Domain[] {
  const domains: Domain[] = [];
  for (const line of text.split('\n')) {
    const server = /^([a-z0-9-]+) \(([^)]+)\)( defs)?$/.exec(line);
    const action = /^ {2}(\w+)\(([^)]*)\) (.+)$/.exec(line);
    const entity = /^ {2}(\w+): ([^[]*)(?:\[(.*)\])?$/.exec(line);
    if (server)
      domains.push({ server: server[1]!, product: server[2]!, defs: !!server[3], entities: [], actions: [] });
    else if (action)
      domains.at(-1)!.actions.push({ name: action[1]!, params: commaList(action[2]), summary: action[3]! });
    else if (entity)
      domains
        .at(-1)!
        .entities.push({ name: entity[1]!, fields: commaList(entity[2]), statuses: commaList(entity[3]) });
    else if (line.trim() !== '') throw new Error(`synthetic catalog: cannot parse domain line "${line}"`);
  }
  return domains;
}

const DOMAINS = parseDomains(DOMAINS_TEXT);

/** mulberry32: small, fast, good enough to vary text; the same seed gives the same stream. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rng = () => number;
const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)]!;
const words = (name: string) => name.replace(/_/g, ' ');
const plural = (noun: string) =>
  noun.endsWith('y') ? `${noun.slice(0, -1)}ies` : /(s|x|ch|sh)$/.test(noun) ? `${noun}es` : `${noun}s`;

/** The `$defs` a model-generated schema repeats in every tool of its server. */
const SHARED_DEFS = {
  Pagination: {
    type: 'object',
    description: 'Cursor-based pagination.',
    properties: {
      limit: { type: 'integer', minimum: 1, maximum: 100, default: 25, description: 'Page size.' },
      cursor: { type: 'string', description: 'Opaque cursor from the previous page; omit for the first.' },
    },
  },
  Money: {
    type: 'object',
    description: 'An amount in the smallest unit of a currency.',
    properties: {
      value: { type: 'integer', description: 'Amount in minor units, e.g. cents.' },
      currency: { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO 4217 currency code.' },
    },
    required: ['value', 'currency'],
  },
  Address: {
    type: 'object',
    properties: {
      line1: { type: 'string' },
      line2: { type: 'string' },
      city: { type: 'string' },
      postal_code: { type: 'string' },
      country: { type: 'string', description: 'ISO 3166-1 alpha-2 country code.' },
    },
    required: ['line1', 'city', 'country'],
  },
  Metadata: {
    type: 'object',
    description: 'Free-form key/value pairs stored with the object.',
    additionalProperties: { type: 'string', maxLength: 500 },
  },
} as const;

const ENUMS: Record<string, string[]> = {
  format: ['pdf', 'docx', 'markdown', 'html'],
  mode: ['driving', 'walking', 'bicycling', 'transit'],
  units: ['metric', 'imperial'],
  role: ['viewer', 'commenter', 'editor', 'owner'],
  response: ['accepted', 'declined', 'tentative'],
};

const MONEY_PARAMS = new Set(['amount', 'amount_due', 'price']);
const ADDRESS_PARAMS = new Set(['address', 'from_address', 'to_address']);

/** The schema of one named parameter, described for `entity`. */
function paramSchema(rng: Rng, param: string, entity: string, defs: boolean): Record<string, unknown> {
  const text = words(param);
  if (defs && MONEY_PARAMS.has(param)) return { $ref: '#/$defs/Money', description: `The ${text}.` };
  if (defs && ADDRESS_PARAMS.has(param)) return { $ref: '#/$defs/Address', description: `The ${text}.` };
  if (param.endsWith('_id'))
    return {
      type: 'string',
      description: `ID of the ${words(param.slice(0, -3))}${pick(rng, ['.', ' (as returned by list).', ', e.g. "abc123".'])}`,
    };
  if (param.endsWith('_ids') || param === 'emails' || param === 'labels' || param === 'tags')
    return { type: 'array', items: { type: 'string' }, description: `One or more ${text}.` };
  if (
    /(count|quantity|replicas|days|minutes|hours|seconds|ttl|depth|lines|delta|percentage|number|size|weight)$/.test(
      param,
    )
  )
    return {
      type: 'integer',
      minimum: 0,
      description: `The ${text}${pick(rng, ['.', ` of the ${entity}.`, ''])}`,
    };
  if (/^(is_|enabled|public|unique|versioning|reply_all|purge_everything)/.test(param))
    return { type: 'boolean', default: false, description: `Whether ${text.replace(/^is /, '')} applies.` };
  if (/(date|_at|start|end)$/.test(param))
    return { type: 'string', format: 'date-time', description: `The ${text}, in ISO 8601.` };
  if (param === 'format' || param === 'mode' || param === 'units' || param === 'role' || param === 'response')
    return { type: 'string', enum: ENUMS[param], description: `The ${text} to use.` };
  return {
    type: 'string',
    description: pick(rng, [
      `The ${text} of the ${words(entity)}.`,
      `${text[0]!.toUpperCase()}${text.slice(1)}.`,
      `The ${text}.`,
    ]),
  };
}

type Verb = 'list' | 'get' | 'create' | 'update' | 'delete' | 'search' | 'archive' | 'export' | 'count';
const VERBS: readonly Verb[] = [
  'list',
  'get',
  'create',
  'update',
  'delete',
  'search',
  'archive',
  'export',
  'count',
];

const TEMPLATES: Record<Verb, readonly string[]> = {
  list: [
    'List {things} in the {product} account.',
    'Returns a page of {things}, newest first.',
    'Lists all {things} you can see, with filters.',
  ],
  get: [
    'Get one {thing} by ID.',
    'Retrieve the full details of a {thing}.',
    'Fetches a single {thing}, including its related records.',
  ],
  create: [
    'Create a new {thing}.',
    'Creates a {thing} in the {product} and returns it with its ID.',
    'Add a {thing}.',
  ],
  update: [
    'Update fields of an existing {thing}.',
    'Modifies a {thing}; only the fields given change.',
    'Patch a {thing}.',
  ],
  delete: [
    'Delete a {thing} permanently.',
    'Removes a {thing}. This cannot be undone.',
    'Deletes the given {thing}.',
  ],
  search: [
    'Full-text search over {things}.',
    'Search {things} by keyword and return the best matches.',
    'Find {things} matching a query string.',
  ],
  archive: [
    'Archive a {thing} so it no longer shows in lists.',
    'Moves a {thing} to the archive; it can be restored later.',
  ],
  export: ['Export {things} as CSV or JSON.', 'Exports every {thing} matching the filters to a file.'],
  count: ['Count {things} matching the filters.', 'Returns how many {things} there are.'],
};

const EXTRAS = [
  '',
  '',
  ' Results are paginated; pass the returned cursor to get the next page.',
  ' Requires the {product} admin scope.',
  ' Rate limited to 10 requests per second.',
  ' Returns the {thing} as JSON.',
  ' Use this before making changes to check the current state.',
];

function fill(rng: Rng, template: string, entity: string, product: string): string {
  const extra = pick(rng, EXTRAS);
  return (template + extra)
    .replaceAll('{things}', words(plural(entity)))
    .replaceAll('{thing}', words(entity))
    .replaceAll('{product}', product);
}

function entityParams(rng: Rng, verb: Verb, entity: Entity, defs: boolean) {
  const id = `${entity.name}_id`;
  const props: Record<string, unknown> = {};
  const required: string[] = [];
  const field = (p: string) => (props[p] = paramSchema(rng, p, entity.name, defs));
  if (verb === 'get' || verb === 'update' || verb === 'delete' || verb === 'archive') {
    props[id] = { type: 'string', description: `ID of the ${words(entity.name)}.` };
    required.push(id);
  }
  if (verb === 'create' || verb === 'update') {
    for (const f of entity.fields) field(f);
    if (verb === 'create')
      required.push(...entity.fields.slice(0, 1 + Math.floor(rng() * entity.fields.length)));
    props.metadata = defs
      ? { $ref: '#/$defs/Metadata' }
      : { type: 'object', additionalProperties: { type: 'string' } };
  }
  if (verb === 'search') {
    props.query = { type: 'string', description: 'Words to look for.' };
    required.push('query');
  }
  if (verb === 'list' || verb === 'search' || verb === 'export' || verb === 'count') {
    if (entity.statuses.length > 0)
      props.status = {
        type: 'string',
        enum: [...entity.statuses],
        description: `Only ${words(plural(entity.name))} in this state.`,
      };
    props.filter = {
      type: 'object',
      description: 'Narrow the results.',
      properties: {
        created_after: { type: 'string', format: 'date-time' },
        created_before: { type: 'string', format: 'date-time' },
        owner_id: { type: 'string', description: 'Only those owned by this user.' },
      },
    };
    if (verb !== 'count') props.page = defs ? { $ref: '#/$defs/Pagination' } : { ...SHARED_DEFS.Pagination };
    if (verb === 'list')
      props.sort = { type: 'string', enum: ['created_at', 'updated_at', 'name'], default: 'created_at' };
    if (verb === 'export') props.format = { type: 'string', enum: ['csv', 'json'], default: 'csv' };
  }
  if (verb === 'delete')
    props.force = {
      type: 'boolean',
      default: false,
      description: 'Delete even if other records refer to it.',
    };
  return { props, required };
}

function makeTool(
  rng: Rng,
  name: string,
  description: string,
  props: Record<string, unknown>,
  required: string[],
  defs: boolean,
  readOnly: boolean,
): Tool {
  const inputSchema: Record<string, unknown> = { type: 'object', properties: props };
  if (required.length > 0) inputSchema.required = [...new Set(required)];
  if (defs) inputSchema.$defs = SHARED_DEFS;
  return {
    name,
    ...(rng() < 0.5 && { title: words(name).replace(/^\w/, (c) => c.toUpperCase()) }),
    description,
    inputSchema: inputSchema as Tool['inputSchema'],
    annotations: { readOnlyHint: readOnly, destructiveHint: /^(delete|void|cancel|purge)/.test(name) },
  };
}

/** Every tool a domain can offer, in listing order: actions, then CRUD verb by verb, then versions. */
function* domainTools(rng: Rng, domain: Domain): Generator<Tool> {
  const { entities, defs } = domain;
  for (const { name, summary, params } of domain.actions) {
    const props: Record<string, unknown> = {};
    for (const p of params) props[p] = paramSchema(rng, p, entities[0]!.name, defs);
    yield makeTool(
      rng,
      name,
      `${summary}.${fill(rng, '', entities[0]!.name, domain.product)}`,
      props,
      params.slice(0, 1 + Math.floor(rng() * params.length)),
      defs,
      false,
    );
  }
  for (let version = 1; ; version++) {
    for (const verb of VERBS) {
      for (const entity of entities) {
        const noun =
          verb === 'list' || verb === 'search' || verb === 'export' || verb === 'count'
            ? plural(entity.name)
            : entity.name;
        const name = version === 1 ? `${verb}_${noun}` : `${verb}_${noun}_v${version}`;
        const { props, required } = entityParams(rng, verb, entity, defs);
        const description = fill(rng, pick(rng, TEMPLATES[verb]), entity.name, domain.product);
        const note = version === 1 ? '' : ` Version ${version} of the API; prefer it for new integrations.`;
        yield makeTool(
          rng,
          name,
          description + note,
          props,
          required,
          defs,
          verb === 'list' || verb === 'get' || verb === 'search' || verb === 'count',
        );
      }
    }
  }
}

/**
 * Generates `options.tools` tools spread evenly over the 25 servers (the first servers get one
 * more when it does not divide), deterministically from `options.seed` (default 1). Which
 * tools exist depends only on the count; the seed varies their wording, titles and which
 * parameters are required. The `$defs` objects are shared between tools: do not mutate them.
 */
export function syntheticCatalog(options: SyntheticCatalogOptions): SyntheticServer[] {
  const total = Math.max(0, Math.floor(options.tools));
  const rng = prng(options.seed ?? 1);
  return DOMAINS.map((domain, i) => {
    const quota = Math.floor(total / DOMAINS.length) + (i < total % DOMAINS.length ? 1 : 0);
    const tools: Tool[] = [];
    const source = domainTools(rng, domain);
    while (tools.length < quota) tools.push(source.next().value as Tool);
    return { server: domain.server, tools };
  });
}
