//! Tables that fit the terminal: the one column plan every table of reconctl is laid out by.
//!
//! A table declares its columns: a header, how important the column is (0: always shown;
//! the higher, the sooner it goes) and how it may give up width ([`Fit`]). When the rows do
//! not fit the width (`COLUMNS`, else the terminal's; no limit in a pipe), in this order:
//!
//! 1. job ids are shortened to the shortest prefix (8 hex digits or more) that still tells
//!    apart every id on screen: every JOB argument takes such a prefix;
//! 2. columns are dropped, least important first, until the rest fits with every free-text
//!    column at its comfortable width (its `min`) — a free-text column that would be the next
//!    to go is squeezed harder instead, when that is enough;
//! 3. free-text columns give up width, the widest first: truncated with `…`, or wrapped at
//!    spaces ([`Fit::Wrap`]).
//!
//! Nothing else is ever cut: a state name, an id, a count, a header or a command is shown
//! whole or not at all, and a cell never breaks across lines except a wrapped one, at a
//! space. Every cell's text is escaped ([`super::escape`]): a value from outside cannot
//! move the cursor or forge a line. JSON output keeps everything; only tables are fitted.
//!
//! The plan decides, comfy-table draws: each row's fitted cells go to comfy-table in the
//! plan's widths ([`draw`]: no borders, two spaces between columns, each column aligned its
//! way). Left here, as thin code, is what comfy-table cannot do: the plan itself (its own
//! arrangement squeezes a state name to three letters and cannot drop a column or shorten
//! an id to a unique prefix), notes under a row (a command, a dropped column shown below),
//! and [`StreamTable`], which prints a row at a time under a header fixed before the rows.

use std::collections::HashMap;

use dialoguer::console::{measure_text_width, truncate_str};
use uuid::Uuid;

use super::escape;
use crate::ids::{prefix_len, MIN_PREFIX};
use crate::jobs::State;

/// Spaces between two columns.
const GAP: usize = 2;
/// The narrowest a free-text column is squeezed to, as a last resort.
const FLOOR: usize = 10;
/// A job id in full.
const ID_LEN: usize = 36;
/// Where the text form of a UUID has its dashes.
const DASHES: [usize; 4] = [8, 13, 18, 23];

/// How a column may give up width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fit {
    /// Shown whole or dropped: state names, counts, durations, names typed into a command.
    Whole,
    /// A job id: whole, or the shortest unique prefix of 8 or more hex digits.
    Id,
    /// Free text, truncated with `…`; `min` is its comfortable width.
    Truncate { min: usize },
    /// Free text over several lines, wrapped at spaces; `min` is its comfortable width.
    Wrap { min: usize },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// What a cell's color says (only when color is on).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Tone {
    #[default]
    Plain,
    /// Needs a person (uncertain, conflict, FAIL).
    Bad,
    /// Waiting or holding (pending, in_flight, paused).
    Warn,
    /// Done (accepted, ok).
    Good,
    /// Of no more interest (failed).
    Dim,
}

impl Tone {
    fn code(self) -> Option<u8> {
        match self {
            Tone::Plain => None,
            Tone::Bad => Some(31),
            Tone::Warn => Some(33),
            Tone::Good => Some(32),
            Tone::Dim => Some(90),
        }
    }

    /// A state's urgency: red when it needs a person, yellow while it waits, green when done.
    pub fn of_state(state: State) -> Tone {
        if State::unsettled().contains(&state) {
            Tone::Bad
        } else if State::waiting().contains(&state) || state == State::leased() {
            Tone::Warn
        } else if state == State::bulk() {
            Tone::Good
        } else {
            Tone::Dim
        }
    }

    /// `text` in this tone's color, when `color` is on.
    pub fn paint(self, text: &str, color: bool) -> String {
        match self.code() {
            Some(code) if color && !text.is_empty() => format!("\x1b[{code}m{text}\x1b[0m"),
            _ => text.to_string(),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Column {
    header: String,
    priority: u8,
    fit: Fit,
    align: Align,
    /// When dropped, shown under its row instead (wrapped across the whole width).
    below: bool,
}

impl Column {
    /// A column shown whole, always (priority 0).
    pub fn new(header: impl Into<String>) -> Column {
        Column {
            header: header.into(),
            priority: 0,
            fit: Fit::Whole,
            align: Align::Left,
            below: false,
        }
    }

    /// A column of job ids.
    pub fn id(header: impl Into<String>) -> Column {
        Column::new(header).fit(Fit::Id)
    }

    /// How soon the column is dropped when space is short (0: never; higher: sooner).
    pub fn priority(mut self, priority: u8) -> Column {
        self.priority = priority;
        self
    }

    pub fn fit(mut self, fit: Fit) -> Column {
        self.fit = fit;
        self
    }

    /// Free text truncated with `…`, comfortable at `min` columns.
    pub fn truncate(self, min: usize) -> Column {
        self.fit(Fit::Truncate { min })
    }

    /// Free text wrapped at spaces, comfortable at `min` columns.
    pub fn wrap(self, min: usize) -> Column {
        self.fit(Fit::Wrap { min })
    }

    pub fn right(mut self) -> Column {
        self.align = Align::Right;
        self
    }

    /// When there is no room for the column at its comfortable width, its text goes under
    /// the row, across the whole width, instead of being squeezed or lost.
    pub fn or_below(mut self) -> Column {
        self.below = true;
        self
    }

    fn flexible(&self) -> bool {
        matches!(self.fit, Fit::Truncate { .. } | Fit::Wrap { .. })
    }
}

/// One cell: its text (escaped), a tail kept when the text is truncated (`(paused)`), a tone.
#[derive(Debug, Clone, Default)]
pub struct Cell {
    pub(super) text: String,
    pub(super) tail: String,
    pub(super) tone: Tone,
}

impl Cell {
    /// A cell showing `text` escaped: control characters and bidi overrides made visible.
    pub fn new(text: impl AsRef<str>) -> Cell {
        Cell {
            text: escape(text.as_ref()),
            ..Cell::default()
        }
    }

    pub fn empty() -> Cell {
        Cell::default()
    }

    pub fn id(id: Uuid) -> Cell {
        Cell::new(id.to_string())
    }

    /// A state name, in the color of its urgency.
    pub fn state(state: State) -> Cell {
        Cell::new(state.as_str()).tone(Tone::of_state(state))
    }

    /// Text kept after the cell's text when that is truncated (`cms-a… (paused)`).
    pub fn tail(mut self, tail: &str) -> Cell {
        self.tail = escape(tail);
        self
    }

    pub fn tone(mut self, tone: Tone) -> Cell {
        self.tone = tone;
        self
    }

    pub(super) fn width(&self) -> usize {
        measure_text_width(&self.text) + measure_text_width(&self.tail)
    }

    pub(super) fn full(&self) -> String {
        format!("{}{}", self.text, self.tail)
    }

    /// The cell in `width` columns or fewer, `…` where text was cut (the tail kept).
    pub(super) fn truncated(&self, width: usize) -> String {
        if self.width() <= width {
            return self.full();
        }
        let tail = measure_text_width(&self.tail);
        if tail + 1 >= width {
            return truncate_str(&self.full(), width, "…").into_owned();
        }
        format!(
            "{}{}",
            truncate_str(&self.text, width - tail, "…"),
            self.tail
        )
    }
}

impl From<&str> for Cell {
    fn from(s: &str) -> Cell {
        Cell::new(s)
    }
}

impl From<String> for Cell {
    fn from(s: String) -> Cell {
        Cell::new(s)
    }
}

/// A line under a row, across the whole width.
#[derive(Debug, Clone)]
pub enum Note {
    /// A command to copy: never wrapped; the job id in it is shortened like the table's ids
    /// when the whole command does not fit.
    Command { text: String, id: Option<Uuid> },
    /// Prose, wrapped at spaces (a `command` in backticks is never broken).
    Text(String),
}

impl Note {
    /// A command to copy, `id` being the job id in it (shortened when the width asks).
    pub fn command(text: impl AsRef<str>, id: Option<Uuid>) -> Note {
        Note::Command {
            text: escape(text.as_ref()),
            id,
        }
    }

    /// Prose; escaped, so compose it from our own words and escaped values.
    pub fn text(text: impl AsRef<str>) -> Note {
        Note::Text(escape(text.as_ref()))
    }
}

struct Row {
    cells: Vec<Cell>,
    notes: Vec<Note>,
}

/// A table: columns, rows, and the notes under rows.
pub struct Table {
    columns: Vec<Column>,
    rows: Vec<Row>,
    header: bool,
    /// At least this many characters of a shortened id (unique in the whole table).
    min_prefix: usize,
}

/// How a table is laid out at one width: each column's width, `None` for a dropped one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub widths: Vec<Option<usize>>,
    /// How many characters of a job id are shown (36: the whole id).
    pub id_len: usize,
    /// Whether a value longer than its column is cut (false: it pushes the rest of its line).
    pub cut: bool,
    /// The prefix length that tells the ids on screen apart (for commands under rows).
    pub prefix: usize,
}

impl Table {
    pub fn new(columns: Vec<Column>) -> Table {
        Table {
            columns,
            rows: Vec::new(),
            header: true,
            min_prefix: MIN_PREFIX,
        }
    }

    /// Shortened ids keep at least `len` characters: the length that makes them unique in
    /// the database (`jobs::store::unique_prefix_len`), not only on screen.
    pub fn prefix_at_least(mut self, len: usize) -> Table {
        self.min_prefix = len;
        self
    }

    /// No header line (a list of labelled values).
    pub fn without_header(mut self) -> Table {
        self.header = false;
        self
    }

    /// Add a row: one cell per column (missing ones are empty).
    pub fn row(&mut self, cells: Vec<Cell>) -> &mut Table {
        self.rows.push(Row {
            cells,
            notes: Vec::new(),
        });
        self
    }

    /// A line under the last row.
    pub fn note(&mut self, note: Note) -> &mut Table {
        if let Some(row) = self.rows.last_mut() {
            row.notes.push(note);
        }
        self
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    fn cell(&self, row: &Row, i: usize) -> Cell {
        row.cells.get(i).cloned().unwrap_or_default()
    }

    /// Every job id on screen: in id columns and in commands under rows.
    fn ids(&self) -> Vec<Uuid> {
        let mut ids = Vec::new();
        for row in &self.rows {
            for (i, c) in self.columns.iter().enumerate() {
                if c.fit == Fit::Id {
                    if let Some(id) = row.cells.get(i).and_then(|c| Uuid::parse_str(&c.text).ok()) {
                        ids.push(id);
                    }
                }
            }
            for n in &row.notes {
                if let Note::Command { id: Some(id), .. } = n {
                    ids.push(*id);
                }
            }
        }
        ids
    }

    /// The plan for `width` columns (`None`: as wide as the rows are).
    pub fn plan(&self, width: Option<usize>) -> Plan {
        let natural: Vec<usize> = (0..self.columns.len())
            .map(|i| {
                self.rows
                    .iter()
                    .map(|r| self.cell(r, i).width())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let prefix = unique_prefix(&self.ids()).max(self.min_prefix);
        plan(&self.columns, &natural, prefix, width)
    }

    /// The table at the UI's width and color.
    pub fn render(&self, ui: &super::Ui) -> String {
        self.render_at(ui.width().map(usize::from), ui.color())
    }

    /// The table at `width` columns (`None`: nothing is cut), colored or not; no trailing
    /// newline.
    pub fn render_at(&self, width: Option<usize>, color: bool) -> String {
        let plan = self.plan(width);
        let shorten = self.rows.iter().flat_map(|r| &r.notes).any(|n| match n {
            Note::Command { text, .. } => !command_fits(text, width),
            Note::Text(_) => false,
        });
        let mut lines = Vec::new();
        if self.header {
            lines.push(header_line(&self.columns, &plan, color));
        }
        for row in &self.rows {
            let cells: Vec<Cell> = (0..self.columns.len()).map(|i| self.cell(row, i)).collect();
            lines.extend(row_lines(&self.columns, &plan, &cells, color));
            for (i, c) in self.columns.iter().enumerate() {
                if c.below && plan.widths[i].is_none() && !cells[i].text.is_empty() {
                    let note = Note::Text(cells[i].full());
                    lines.extend(note_lines(&note, &plan, width, shorten));
                }
            }
            for note in &row.notes {
                lines.extend(note_lines(note, &plan, width, shorten));
            }
        }
        lines.join("\n")
    }
}

fn header_line(columns: &[Column], plan: &Plan, color: bool) -> String {
    let cells: Vec<Cell> = columns.iter().map(|c| Cell::new(&c.header)).collect();
    let line = row_lines(columns, plan, &cells, false).remove(0);
    if color {
        format!("\x1b[1m{line}\x1b[0m")
    } else {
        line
    }
}

/// One row's lines (several when a wrapped cell needs them).
fn row_lines(columns: &[Column], plan: &Plan, cells: &[Cell], color: bool) -> Vec<String> {
    let shown: Vec<usize> = (0..columns.len())
        .filter(|i| plan.widths[*i].is_some())
        .collect();
    // Each shown cell as its lines of text, already fitted to the column.
    let texts: Vec<Vec<String>> = shown
        .iter()
        .map(|&i| {
            let w = plan.widths[i].unwrap_or(0);
            let cell = &cells[i];
            match columns[i].fit {
                Fit::Whole => vec![cell.full()],
                Fit::Id => vec![shorten_id(&cell.full(), plan.id_len)],
                Fit::Truncate { .. } if plan.cut => vec![cell.truncated(w)],
                Fit::Truncate { .. } => vec![cell.full()],
                Fit::Wrap { .. } => {
                    let mut lines = wrap_words(&cell.text, w);
                    if !cell.tail.is_empty() {
                        if let Some(last) = lines.last_mut() {
                            last.push_str(&cell.tail);
                        }
                    }
                    lines
                }
            }
        })
        .collect();
    draw(columns, plan, &shown, &texts, cells, color)
}

/// One row drawn by comfy-table in the plan's widths: no borders, [`GAP`] spaces between
/// columns, each column aligned its way, a row as tall as its tallest cell. Every cell comes
/// already fitted (shortened, truncated, wrapped: comfy-table would squeeze a state name or
/// break an id, which the plan never does) and painted; comfy-table measures the painted
/// text without its color codes (its `custom_styling`).
fn draw(
    columns: &[Column],
    plan: &Plan,
    shown: &[usize],
    texts: &[Vec<String>],
    cells: &[Cell],
    color: bool,
) -> Vec<String> {
    use comfy_table::{CellAlignment, ColumnConstraint, Width};
    let mut table = comfy_table::Table::new();
    table
        .load_preset(comfy_table::presets::NOTHING)
        .force_no_tty();
    table.add_row(shown.iter().zip(texts).map(|(&i, lines)| {
        let painted: Vec<String> = lines
            .iter()
            .map(|l| cells[i].tone.paint(l, color))
            .collect();
        comfy_table::Cell::new(painted.join("\n"))
    }));
    let last = shown.len().saturating_sub(1);
    for (k, &i) in shown.iter().enumerate() {
        let gap = if k < last { GAP } else { 0 };
        let width = plan.widths[i].unwrap_or(0) + gap;
        if let Some(column) = table.column_mut(k) {
            column
                .set_padding((0, u16::try_from(gap).unwrap_or(u16::MAX)))
                .set_constraint(ColumnConstraint::Absolute(Width::Fixed(
                    u16::try_from(width).unwrap_or(u16::MAX),
                )));
            column.set_cell_alignment(match columns[i].align {
                Align::Left => CellAlignment::Left,
                Align::Right => CellAlignment::Right,
            });
        }
    }
    table.lines().map(|l| l.trim_end().to_string()).collect()
}

const NOTE_INDENT: usize = 2;

/// Whether a command under a row fits the width as it is.
fn command_fits(text: &str, width: Option<usize>) -> bool {
    width.map_or(true, |w| NOTE_INDENT + measure_text_width(text) <= w)
}

/// `shorten`: the ids in commands are shortened (one command did not fit, so all are, alike).
fn note_lines(note: &Note, plan: &Plan, width: Option<usize>, shorten: bool) -> Vec<String> {
    const INDENT: usize = NOTE_INDENT;
    match note {
        Note::Command { text, id } => {
            let mut text = text.clone();
            if let Some(id) = id {
                if shorten {
                    let full = id.to_string();
                    let short = shorten_id(&full, plan.prefix);
                    text = text.replace(&full, &short);
                }
            }
            vec![format!("{}{text}", " ".repeat(INDENT))]
        }
        Note::Text(text) => {
            let w = width.map(|w| w.saturating_sub(INDENT + 2).max(FLOOR));
            wrap_words_opt(text, w)
                .into_iter()
                .enumerate()
                .map(|(k, l)| {
                    let indent = if k == 0 { INDENT } else { INDENT + 2 };
                    format!("{}{l}", " ".repeat(indent))
                })
                .collect()
        }
    }
}

/// The plan for `columns` whose content is `natural` columns wide, the ids on screen telling
/// apart at `id_prefix` characters, at `width` (see the module's comment).
pub fn plan(columns: &[Column], natural: &[usize], id_prefix: usize, width: Option<usize>) -> Plan {
    let n = columns.len();
    let header: Vec<usize> = columns
        .iter()
        .map(|c| measure_text_width(&c.header))
        .collect();
    let mut widths: Vec<usize> = (0..n)
        .map(|i| {
            let content = if columns[i].fit == Fit::Id {
                natural[i].min(ID_LEN)
            } else {
                natural[i]
            };
            content.max(header[i])
        })
        .collect();
    let mut shown = vec![true; n];
    let mut id_len = ID_LEN;
    let total = |widths: &[usize], shown: &[bool]| -> usize {
        let cols: Vec<usize> = (0..n).filter(|i| shown[*i]).map(|i| widths[i]).collect();
        cols.iter().sum::<usize>() + GAP * cols.len().saturating_sub(1)
    };
    let done = |widths: Vec<usize>, shown: &[bool], id_len: usize| Plan {
        widths: (0..n).map(|i| shown[i].then_some(widths[i])).collect(),
        id_len,
        cut: true,
        prefix: id_prefix.clamp(MIN_PREFIX, ID_LEN),
    };
    let Some(width) = width else {
        return done(widths, &shown, id_len);
    };
    if total(&widths, &shown) <= width {
        return done(widths, &shown, id_len);
    }

    // 1. Ids: the shortest prefix that still tells them apart.
    if columns.iter().any(|c| c.fit == Fit::Id) {
        id_len = id_prefix.clamp(MIN_PREFIX, ID_LEN);
        for (i, c) in columns.iter().enumerate() {
            if c.fit == Fit::Id {
                widths[i] = natural[i].min(id_len).max(header[i]);
            }
        }
        if total(&widths, &shown) <= width {
            return done(widths, &shown, id_len);
        }
    }

    // 2. A column that can go under its row goes there when it cannot be whole (truncated
    //    text) or at its comfortable width (wrapped text). Then drop the least important
    //    columns until the rest fits with free text at its comfortable width.
    for (i, c) in columns.iter().enumerate() {
        if c.below && total(&widths, &shown) > width {
            shown[i] = false;
        }
    }
    let soft = |i: usize, widths: &[usize]| match columns[i].fit {
        // Truncated text that can go under its row is shown whole or not at all.
        Fit::Truncate { .. } if columns[i].below => widths[i],
        Fit::Truncate { min } | Fit::Wrap { min } => widths[i].min(min.max(header[i])),
        _ => widths[i],
    };
    // A column that can go under its row is never squeezed below its comfortable width.
    let hard = |i: usize, widths: &[usize]| match columns[i].fit {
        Fit::Truncate { .. } if columns[i].below => widths[i],
        Fit::Wrap { .. } if columns[i].below => soft(i, widths),
        Fit::Truncate { .. } | Fit::Wrap { .. } => widths[i].min(FLOOR.max(header[i])),
        _ => widths[i],
    };
    loop {
        let at_soft: Vec<usize> = (0..n).map(|i| soft(i, &widths)).collect();
        if total(&at_soft, &shown) <= width {
            break;
        }
        let next = (0..n)
            .filter(|i| shown[*i] && columns[*i].priority > 0)
            .max_by_key(|i| (columns[*i].priority, *i));
        let Some(next) = next else { break };
        if columns[next].flexible() {
            let mut squeezed = at_soft.clone();
            squeezed[next] = hard(next, &widths);
            if total(&squeezed, &shown) <= width {
                break;
            }
        }
        shown[next] = false;
    }

    // Space dropping freed beyond what was needed: bring back, most important first, the
    // dropped columns that fit in it at their comfortable width.
    let mut dropped: Vec<usize> = (0..n).filter(|i| !shown[*i]).collect();
    dropped.sort_by_key(|i| (columns[*i].priority, *i));
    for i in dropped {
        let mut at_soft: Vec<usize> = (0..n).map(|k| soft(k, &widths)).collect();
        if columns[i].below && matches!(columns[i].fit, Fit::Truncate { .. }) {
            at_soft[i] = widths[i];
        }
        shown[i] = true;
        if total(&at_soft, &shown) > width {
            shown[i] = false;
        }
    }

    // 3. Free text gives up width, the widest first: to its comfortable width, then further.
    for floor in [&soft as &dyn Fn(usize, &[usize]) -> usize, &hard] {
        let floors: Vec<usize> = (0..n).map(|i| floor(i, &widths)).collect();
        while total(&widths, &shown) > width {
            let widest = (0..n)
                .filter(|i| shown[*i] && columns[*i].flexible() && widths[*i] > floors[*i])
                .max_by_key(|i| (widths[*i], *i));
            let Some(i) = widest else { break };
            widths[i] -= 1;
        }
    }
    done(widths, &shown, id_len)
}

/// The first `len` characters of an id (a prefix never ends in a dash); anything that is not
/// an id as it is.
pub fn shorten_id(text: &str, len: usize) -> String {
    if text.len() != ID_LEN || Uuid::parse_str(text).is_err() || len >= ID_LEN {
        return text.to_string();
    }
    let mut len = len.max(MIN_PREFIX);
    while DASHES.contains(&(len - 1)) {
        len += 1;
    }
    text[..len].to_string()
}

/// How many characters of their text form tell `ids` apart (at least the 8 hex digits of
/// [`MIN_PREFIX`], never ending in a dash).
pub fn unique_prefix(ids: &[Uuid]) -> usize {
    let mut ids = ids.to_vec();
    ids.sort();
    ids.dedup();
    ids.windows(2)
        .map(|pair| prefix_len(&pair[0], &pair[1]))
        .fold(MIN_PREFIX, usize::max)
}

/// Ids seen so far by a table printed a row at a time, and the prefix length that tells
/// them apart: it only grows.
#[derive(Debug, Default)]
pub struct SeenIds {
    /// By their first 32 bits: the ids sharing those (almost always one).
    by_head: HashMap<u32, Vec<Uuid>>,
    len: usize,
}

impl SeenIds {
    /// Remember `id`; returns the prefix length needed so far.
    pub fn add(&mut self, id: Uuid) -> usize {
        let head = u32::from_be_bytes(id.as_bytes()[..4].try_into().unwrap_or_default());
        let same = self.by_head.entry(head).or_default();
        if !same.contains(&id) {
            let mut all = same.clone();
            all.push(id);
            self.len = self.len.max(unique_prefix(&all));
            same.push(id);
        }
        self.len = self.len.max(MIN_PREFIX);
        self.len
    }
}

/// A table printed a row at a time (a run that holds none of its rows): its plan is made
/// from the columns' declared widths, the last free-text column taking what is left; ids in
/// full when the width allows, else as long a prefix as the ids so far need (8 to start) and
/// the database does ([`StreamTable::prefix_at_least`]).
pub struct StreamTable {
    columns: Vec<Column>,
    natural: Vec<usize>,
    width: Option<usize>,
    color: bool,
    seen: SeenIds,
    plan: Plan,
}

impl StreamTable {
    /// `natural`: each column's expected width (for the last free-text column: its least).
    pub fn new(
        columns: Vec<Column>,
        natural: Vec<usize>,
        width: Option<usize>,
        color: bool,
    ) -> StreamTable {
        let plan = stream_plan(&columns, &natural, MIN_PREFIX, width);
        StreamTable {
            columns,
            natural,
            width,
            color,
            seen: SeenIds::default(),
            plan,
        }
    }

    pub fn header(&self) -> String {
        header_line(&self.columns, &self.plan, self.color)
    }

    /// The width leaves no room for whole ids: they are shortened to a prefix.
    pub fn shortens_ids(&self) -> bool {
        self.plan.id_len < ID_LEN
    }

    /// The ids of the rows from now on keep at least `len` characters: the length that
    /// makes them unique in the database (`jobs::store::unique_prefix_len`), not only among
    /// the rows printed, so each one typed back as a JOB names its job.
    pub fn prefix_at_least(&mut self, len: usize) {
        if self.shortens_ids() && len > self.plan.id_len {
            self.plan = stream_plan(&self.columns, &self.natural, len, self.width);
        }
    }

    /// One row, `id` being the job id in it; single-line cells only (wrapped ones are cut).
    pub fn line(&mut self, id: Uuid, cells: &[Cell]) -> String {
        if self.plan.id_len < ID_LEN {
            let need = self.seen.add(id);
            if need > self.plan.id_len {
                let next = stream_plan(&self.columns, &self.natural, need, self.width);
                let same = next
                    .widths
                    .iter()
                    .zip(&self.plan.widths)
                    .all(|(a, b)| a.is_some() == b.is_some());
                // The columns the header promised stay: a longer id takes its width from the
                // last free-text column rather than dropping one mid-stream.
                self.plan = if same { next } else { self.grown(need) };
            }
        }
        row_lines(&self.columns, &self.plan, cells, self.color).remove(0)
    }
}

impl StreamTable {
    /// The plan with ids of `need` characters, the same columns shown: the id column wider by
    /// what the longer prefix takes, the last free-text column narrower by as much.
    fn grown(&self, need: usize) -> Plan {
        let mut plan = self.plan.clone();
        let sample = Uuid::nil().to_string();
        let delta = shorten_id(&sample, need)
            .len()
            .saturating_sub(shorten_id(&sample, plan.id_len).len());
        plan.id_len = need;
        if let Some(i) = self.columns.iter().position(|c| c.fit == Fit::Id) {
            if let Some(w) = plan.widths[i].as_mut() {
                *w += delta;
            }
        }
        let fill = (0..self.columns.len())
            .rev()
            .find(|i| plan.widths[*i].is_some() && self.columns[*i].flexible());
        if let Some(w) = fill.and_then(|i| plan.widths[i].as_mut()) {
            *w = w.saturating_sub(delta).max(1);
        }
        plan
    }
}

fn stream_plan(
    columns: &[Column],
    natural: &[usize],
    id_prefix: usize,
    width: Option<usize>,
) -> Plan {
    let mut plan = plan(columns, natural, id_prefix, width);
    let Some(width) = width else {
        // No limit (a pipe): nothing is cut; a longer value pushes the rest of its line.
        plan.cut = false;
        return plan;
    };
    let used: usize = plan.widths.iter().flatten().sum::<usize>()
        + GAP * plan.widths.iter().flatten().count().saturating_sub(1);
    let fill = (0..columns.len())
        .rev()
        .find(|i| plan.widths[*i].is_some() && columns[*i].flexible());
    if let (Some(i), true) = (fill, used < width) {
        if let Some(w) = plan.widths[i].as_mut() {
            *w += width - used;
        }
    }
    plan
}

/// `text` in lines of at most `width` columns, broken only at spaces (never inside a word,
/// an id or a `command` in backticks); a word longer than a line is cut with `…`, except a
/// command, which is left whole.
pub fn wrap_words(text: &str, width: usize) -> Vec<String> {
    wrap_words_opt(text, Some(width))
}

pub(crate) fn wrap_words_opt(text: &str, width: Option<usize>) -> Vec<String> {
    match width {
        None => vec![text.to_string()],
        Some(w) => wrap_hanging(text, w, w),
    }
}

/// `text` wrapped at spaces, the first line at most `first` columns, the others `rest`.
pub(crate) fn wrap_hanging(text: &str, first: usize, rest: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    let limit = |lines: &Vec<String>| if lines.is_empty() { first } else { rest }.max(1);
    for word in words(text) {
        let room = limit(&lines);
        let fit = |word: String, room: usize| {
            if measure_text_width(&word) <= room || word.starts_with('`') {
                word
            } else if let Some(kind) = id_kind(&word) {
                // An id someone copies is whole or not shown at all (SPEC §5): where it is
                // whole instead.
                let marker = format!("[{kind}: see -o json]");
                truncate_str(&marker, room, "…").into_owned()
            } else {
                truncate_str(&word, room, "…").into_owned()
            }
        };
        if line.is_empty() {
            line = fit(word, room);
        } else if measure_text_width(&line) + 1 + measure_text_width(&word) <= room {
            line.push(' ');
            line.push_str(&word);
        } else {
            lines.push(std::mem::take(&mut line));
            line = fit(word, limit(&lines));
        }
    }
    lines.push(line);
    lines
}

/// What kind of id `word` is (punctuation around it aside), if it is one someone copies: a
/// job id, an external_ref (`pub_` + 64 hex digits), a hash (64 hex digits).
pub fn id_kind(word: &str) -> Option<&'static str> {
    let core = word.trim_matches(|c: char| !c.is_ascii_alphanumeric() && c != '_');
    let hex64 = |s: &str| s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit());
    if core.strip_prefix("pub_").is_some_and(hex64) {
        Some("external_ref")
    } else if hex64(core) {
        Some("hash")
    } else if core.len() == ID_LEN && Uuid::parse_str(core).is_ok() {
        Some("job id")
    } else {
        None
    }
}

/// The words of a line: split at spaces, a span in backticks (a command) kept as one word.
fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut in_code = false;
    for c in text.chars() {
        match c {
            '`' => {
                in_code = !in_code;
                word.push(c);
            }
            ' ' if !in_code => {
                if !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(s: &str) -> Uuid {
        Uuid::parse_str(s).unwrap()
    }

    #[test]
    fn ids_are_told_apart_by_the_shortest_prefix_of_eight_or_more_digits() {
        let a = id("6ce568d4-075a-4d3c-b189-8d55d6202bbd");
        let b = id("8ddbb177-06bf-49e5-ac84-a9433d0606e6");
        let c = id("6ce568d4-07ff-4d3c-b189-8d55d6202bbd");
        assert_eq!(unique_prefix(&[a, b]), 8);
        assert_eq!(unique_prefix(&[a]), 8);
        // Sharing 8 digits and the dash: the next digits, never a prefix ending in a dash.
        assert_eq!(unique_prefix(&[a, b, c]), 12);
        assert_eq!(shorten_id(&a.to_string(), 8), "6ce568d4");
        assert_eq!(shorten_id(&a.to_string(), 9), "6ce568d4-0");
        assert_eq!(shorten_id(&a.to_string(), 36), a.to_string());
        assert_eq!(shorten_id("not an id", 8), "not an id");
        let mut seen = SeenIds::default();
        assert_eq!(seen.add(a), 8);
        assert_eq!(seen.add(b), 8);
        assert_eq!(seen.add(a), 8);
        assert_eq!(seen.add(c), 12);
    }

    fn jobs_table() -> Table {
        let mut t = Table::new(vec![
            Column::id("ID"),
            Column::new("STATE"),
            Column::new("DESTINATION").truncate(12).priority(1),
            Column::new("REASON").truncate(20).priority(2),
            Column::new("ATTEMPTS").right().priority(3),
        ]);
        t.row(vec![
            Cell::id(id("6ce568d4-075a-4d3c-b189-8d55d6202bbd")),
            Cell::state(State::SafeToRetry),
            Cell::new("cms-a").tail(" (paused)"),
            Cell::new("no match and sent 3m ago, longer than settle_after 2m"),
            Cell::new("3"),
        ]);
        t.row(vec![
            Cell::id(id("8ddbb177-06bf-49e5-ac84-a9433d0606e6")),
            Cell::state(State::InFlight),
            Cell::new("a-very-long-destination-name"),
            Cell::new("lease expired"),
            Cell::new("12"),
        ]);
        t
    }

    #[test]
    fn a_table_gives_up_id_digits_then_columns_then_text_width_and_never_breaks_a_state() {
        let t = jobs_table();
        let wide = t.render_at(None, false);
        assert!(
            wide.contains("6ce568d4-075a-4d3c-b189-8d55d6202bbd"),
            "{wide}"
        );
        assert!(wide.contains("a-very-long-destination-name"), "{wide}");
        for width in [60, 80, 100, 120, 200] {
            let text = t.render_at(Some(width), false);
            for line in text.lines() {
                assert!(
                    measure_text_width(line) <= width,
                    "{width}: {line:?}\n{text}"
                );
            }
            assert!(text.contains("safe_to_retry"), "{text}");
            assert!(text.contains("in_flight"), "{text}");
            assert!(text.contains("6ce568d4"), "{text}");
        }
        let at60 = t.render_at(Some(60), false);
        assert!(!at60.contains("ATTEMPTS"), "{at60}");
        assert!(at60.contains("(paused)"), "{at60}");
        assert!(at60.contains('…'), "{at60}");
    }

    #[test]
    fn cells_are_escaped() {
        let mut t = Table::new(vec![Column::new("A")]);
        t.row(vec![Cell::new("x\u{1b}[2Jy\nz")]);
        assert_eq!(t.render_at(None, false), "A\nx\\x1b[2Jy\\nz");
    }

    #[test]
    fn wrapping_keeps_commands_and_words_whole() {
        let lines = wrap_words(
            "see `reconctl jobs list --state uncertain` and settle them",
            20,
        );
        assert_eq!(
            lines,
            [
                "see",
                "`reconctl jobs list --state uncertain`",
                "and settle them"
            ]
        );
        assert_eq!(wrap_words("abcdefghijkl", 6), ["abcde…"]);
    }

    #[test]
    fn a_command_under_a_row_is_shortened_not_broken() {
        let job = id("6ce568d4-075a-4d3c-b189-8d55d6202bbd");
        let mut t = Table::new(vec![Column::new("MOVE"), Column::new("WHY").truncate(10)]);
        t.row(vec![
            Cell::new("mark_accepted → accepted"),
            Cell::new("valid"),
        ]);
        t.note(Note::command(
            format!("$ reconctl mark accepted {job} --reason TEXT"),
            Some(job),
        ));
        let at60 = t.render_at(Some(60), false);
        assert!(
            at60.ends_with("  $ reconctl mark accepted 6ce568d4 --reason TEXT"),
            "{at60}"
        );
        let at80 = t.render_at(Some(80), false);
        assert!(at80.contains(&job.to_string()), "{at80}");
    }

    #[test]
    fn a_stream_uses_full_ids_when_they_fit_and_widens_its_prefix_as_needed() {
        let columns = vec![
            Column::id("JOB"),
            Column::new("VERDICT"),
            Column::new("REASON").truncate(24).priority(1),
        ];
        let mut wide = StreamTable::new(columns.clone(), vec![36, 13, 24], Some(120), false);
        let a = id("6ce568d4-075a-4d3c-b189-8d55d6202bbd");
        let line = wide.line(a, &[Cell::id(a), Cell::new("accept"), Cell::new("x")]);
        assert!(line.starts_with(&a.to_string()), "{line}");
        let mut narrow = StreamTable::new(columns, vec![36, 13, 24], Some(60), false);
        let line = narrow.line(a, &[Cell::id(a), Cell::new("accept"), Cell::new("x")]);
        assert!(line.starts_with("6ce568d4  "), "{line}");
        let c = id("6ce568d4-07ff-4d3c-b189-8d55d6202bbd");
        let line = narrow.line(c, &[Cell::id(c), Cell::new("accept"), Cell::new("x")]);
        assert!(line.starts_with("6ce568d4-07f  "), "{line}");
        assert!(measure_text_width(&line) <= 60);
    }
}
