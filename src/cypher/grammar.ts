/**
 * The Cypher grammar Scent accepts, in one place: a PEG (peggy) turned into a parser at first use
 * (parser.ts). It follows the openCypher grammar that BloodHound parses with (SpecterOps/DAWGS
 * `cypher/grammar/Cypher.g4`): same precedence, same reserved words, keywords in any case, `//` and
 * `/* *\/` comments. Constructs Scent refuses are recognised here and reported by name through
 * `options.refuse(what, offset)` rather than as syntax errors. Actions build the tree of ast.ts.
 * (Backtick in this text: \x60, which peggy decodes; this file is a template literal.)
 */
export const GRAMMAR = String.raw`
{{
  function leftAssoc(head, tail, make) {
    return tail.reduce((left, [op, right]) => make(op, left, right), head);
  }
  function emptyRel() {
    return { variable: null, types: [], range: null, props: null };
  }
}}

Cypher
  = _ pre:Prefix? _ q:Query _ (";" _)? End { return q; }

End "end of query" = !.

Prefix
  = k:(EXPLAIN / PROFILE) { options.refuse(k + ' is not supported', location().start.offset); }
  / USE { options.refuse('USE is not supported', location().start.offset); }

Query
  = head:SingleQuery tail:(_ u:Union _ q:SingleQuery { return [u, q]; })* {
      return { parts: [head, ...tail.map((x) => x[1])], unionAll: tail.map((x) => x[0]) };
    }

Union
  = UNION __ ALL { return true; }
  / UNION { return false; }

SingleQuery
  = head:Clause tail:(_ c:Clause { return c; })* { return { at: location().start.offset, clauses: [head, ...tail] }; }

Clause
  = Match / Unwind / With / Return / Create / Merge / Set / Remove / Delete / RefusedClause

RefusedClause
  = CALL { options.refuse('procedure invocation is not supported', location().start.offset); }
  / FOREACH { options.refuse('FOREACH is not supported', location().start.offset); }
  / LOAD __ CSV { options.refuse('LOAD CSV is not supported', location().start.offset); }
  / (DROP / CREATE __ (INDEX / CONSTRAINT / UNIQUE / FULLTEXT / LOOKUP / RANGE / TEXT / POINT / DATABASE))
    { options.refuse('schema commands are not supported', location().start.offset); }
  / START __ { options.refuse('START is not supported', location().start.offset); }

// ---- reading clauses

Match
  = opt:(OPTIONAL _)? MATCH _ patterns:Pattern hint:(_ Hint)? where:(_ w:Where { return w; })? {
      return { c: 'match', at: location().start.offset, optional: opt !== null, patterns, where };
    }

Hint
  = USING { options.refuse('USING hints are not supported', location().start.offset); }

Unwind
  = UNWIND _ expr:Expression __ AS __ alias:Variable {
      return { c: 'unwind', at: location().start.offset, expr, alias };
    }

With
  = WITH _ projection:ProjectionBody where:(_ w:Where { return w; })? {
      return { c: 'with', at: location().start.offset, projection, where };
    }

Return
  = RETURN _ projection:ProjectionBody { return { c: 'return', at: location().start.offset, projection }; }

Where
  = WHERE _ e:Expression { return e; }

ProjectionBody
  = distinct:(DISTINCT _)? items:ProjectionItems order:(_ o:Order { return o; })?
    skip:(_ SKIP _ e:Expression { return e; })? limit:(_ LIMIT _ e:Expression { return e; })? {
      return { distinct: distinct !== null, star: items.star, items: items.items, orderBy: order ?? [], skip, limit };
    }

ProjectionItems
  = "*" tail:(_ "," _ i:ProjectionItem { return i; })* { return { star: true, items: tail }; }
  / head:ProjectionItem tail:(_ "," _ i:ProjectionItem { return i; })* { return { star: false, items: [head, ...tail] }; }

ProjectionItem
  = expr:ExpressionWithText alias:(__ AS __ v:Variable { return v; })? {
      return { at: location().start.offset, expr: expr[0], alias, text: expr[1] };
    }

ExpressionWithText
  = e:Expression { return [e, text()]; }

Order
  = ORDER __ BY _ head:SortItem tail:(_ "," _ s:SortItem { return s; })* { return [head, ...tail]; }

SortItem
  = expr:Expression dir:(_ d:(ASCENDING / ASC / DESCENDING / DESC) { return d; })? {
      return { expr, descending: dir !== null && dir.startsWith('DESC') };
    }

// ---- updating clauses

Create
  = CREATE _ patterns:Pattern { return { c: 'create', at: location().start.offset, patterns }; }

Merge
  = MERGE _ pattern:PatternPart actions:(_ a:MergeAction { return a; })* {
      return {
        c: 'merge', at: location().start.offset, pattern,
        onCreate: actions.filter((a) => a[0] === 'create').flatMap((a) => a[1]),
        onMatch: actions.filter((a) => a[0] === 'match').flatMap((a) => a[1]),
      };
    }

MergeAction
  = ON __ MATCH __ SET _ items:SetItems { return ['match', items]; }
  / ON __ CREATE __ SET _ items:SetItems { return ['create', items]; }

Set
  = SET _ items:SetItems { return { c: 'set', at: location().start.offset, items }; }

SetItems
  = head:SetItem tail:(_ "," _ i:SetItem { return i; })* { return [head, ...tail]; }

SetItem
  = target:PropertyTarget _ "=" _ value:Expression {
      return { at: location().start.offset, kind: 'property', target: target.target, key: target.key, value };
    }
  / variable:Variable _ op:("+=" / "=") _ value:Expression {
      return { at: location().start.offset, kind: op === '+=' ? 'merge' : 'replace', variable, value };
    }
  / variable:Variable _ labels:LabelNames {
      return { at: location().start.offset, kind: 'labels', variable, labels };
    }

PropertyTarget
  = atom:Atom lookups:(_ "." _ k:SchemaName { return k; })+ {
      let target = atom;
      for (const key of lookups.slice(0, -1)) target = { t: 'prop', at: atom.at, target, key };
      return { target, key: lookups[lookups.length - 1] };
    }

Remove
  = REMOVE _ head:RemoveItem tail:(_ "," _ i:RemoveItem { return i; })* {
      return { c: 'remove', at: location().start.offset, items: [head, ...tail] };
    }

RemoveItem
  = variable:Variable _ labels:LabelNames { return { at: location().start.offset, kind: 'labels', variable, labels }; }
  / target:PropertyTarget { return { at: location().start.offset, kind: 'property', target: target.target, key: target.key }; }

Delete
  = detach:(DETACH __)? DELETE _ head:Expression tail:(_ "," _ e:Expression { return e; })* {
      return { c: 'delete', at: location().start.offset, detach: detach !== null, exprs: [head, ...tail] };
    }

LabelNames
  = head:(":" _ n:SchemaName { return n; }) tail:(_ ":" _ n:SchemaName { return n; })* { return [head, ...tail]; }

// ---- patterns

Pattern
  = head:PatternPart tail:(_ "," _ p:PatternPart { return p; })* { return [head, ...tail]; }

PatternPart
  = v:Variable _ "=" _ p:AnonymousPatternPart { return { ...p, at: location().start.offset, pathVariable: v }; }
  / AnonymousPatternPart

AnonymousPatternPart
  = kind:(SHORTESTPATH / ALLSHORTESTPATHS) _ "(" _ chain:PatternElement _ ")" {
      return { at: location().start.offset, pathVariable: null, shortest: kind === 'SHORTESTPATH' ? 'shortest' : 'all', ...chain };
    }
  / chain:PatternElement { return { at: location().start.offset, pathVariable: null, shortest: null, ...chain }; }

PatternElement
  = head:NodePattern tail:(_ r:RelationshipPattern _ n:NodePattern { return [r, n]; })* {
      return { nodes: [head, ...tail.map((x) => x[1])], rels: tail.map((x) => x[0]) };
    }
  / "(" _ inner:PatternElement _ ")" { return inner; }

NodePattern
  = "(" _ variable:Variable? _ labels:NodeLabels? _ props:Properties? _ NodeWhere? ")" {
      return { at: location().start.offset, variable, labels, props };
    }

NodeWhere
  = WHERE { options.refuse('WHERE inside a node pattern is not supported', location().start.offset); }

NodeLabels
  = ":" _ head:LabelOr tail:(_ ":" _ l:LabelOr { return l; })* {
      return tail.length === 0 ? head : { t: 'and', args: [head, ...tail] };
    }

LabelOr
  = head:LabelAnd tail:(_ "|" _ l:LabelAnd { return l; })* { return tail.length === 0 ? head : { t: 'or', args: [head, ...tail] }; }

LabelAnd
  = head:LabelNot tail:(_ "&" _ l:LabelNot { return l; })* { return tail.length === 0 ? head : { t: 'and', args: [head, ...tail] }; }

LabelNot
  = "!" _ arg:LabelNot { return { t: 'not', arg }; }
  / "%" { return { t: 'anylabel' }; }
  / "(" _ e:LabelOr _ ")" { return e; }
  / name:SchemaName { return { t: 'label', name }; }

RelationshipPattern
  = "<" _ "-" _ d:RelDetail? _ "-" _ ">" { return { ...(d ?? emptyRel()), at: location().start.offset, direction: 'both' }; }
  / "<" _ "-" _ d:RelDetail? _ "-" { return { ...(d ?? emptyRel()), at: location().start.offset, direction: 'in' }; }
  / "-" _ d:RelDetail? _ "-" _ ">" { return { ...(d ?? emptyRel()), at: location().start.offset, direction: 'out' }; }
  / "-" _ d:RelDetail? _ "-" { return { ...(d ?? emptyRel()), at: location().start.offset, direction: 'both' }; }

RelDetail
  = "[" _ variable:Variable? _ types:RelTypes? _ range:RangeLiteral? _ props:Properties? _ "]" {
      return { variable, types: types ?? [], range, props };
    }

RelTypes
  = ":" _ head:SchemaName tail:(_ "|" _ ":"? _ n:SchemaName { return n; })* { return [head, ...tail]; }

RangeLiteral
  = "*" _ min:Digits? _ dots:(".." _ max:Digits? { return { max }; })? {
      if (dots === null) return min === null ? { min: null, max: null } : { min, max: min };
      return { min, max: dots.max };
    }

Digits
  = d:$[0-9]+ { return Number(d); }

Properties
  = MapLiteral / Parameter

// ---- expressions (lowest precedence first)

Expression
  = OrExpression

OrExpression
  = head:XorExpression tail:(_ OR _ e:XorExpression { return e; })* {
      return tail.length === 0 ? head : { t: 'or', at: head.at, args: [head, ...tail] };
    }

XorExpression
  = head:AndExpression tail:(_ XOR _ e:AndExpression { return e; })* {
      return tail.length === 0 ? head : { t: 'xor', at: head.at, args: [head, ...tail] };
    }

AndExpression
  = head:NotExpression tail:(_ AND _ e:NotExpression { return e; })* {
      return tail.length === 0 ? head : { t: 'and', at: head.at, args: [head, ...tail] };
    }

NotExpression
  = NOT _ arg:NotExpression { return { t: 'not', at: location().start.offset, arg }; }
  / ComparisonExpression

ComparisonExpression
  = head:StringListNullExpression tail:(_ op:ComparisonOperator _ e:StringListNullExpression { return [op, e]; })* {
      return tail.length === 0 ? head : { t: 'cmp', at: head.at, ops: tail.map((x) => x[0]), args: [head, ...tail.map((x) => x[1])] };
    }

ComparisonOperator
  = "<>" / "<=" / ">=" / "=" !"~" { return '='; } / "<" / ">" / "!=" { return '<>'; }

StringListNullExpression
  = head:AddSubExpression tail:(_ p:PredicateSuffix { return p; })* {
      return tail.reduce((left, suffix) => suffix(left), head);
    }

PredicateSuffix
  = STARTS __ WITH _ right:AddSubExpression { return (left) => ({ t: 'strop', at: left.at, op: 'STARTS WITH', left, right }); }
  / ENDS __ WITH _ right:AddSubExpression { return (left) => ({ t: 'strop', at: left.at, op: 'ENDS WITH', left, right }); }
  / CONTAINS _ right:AddSubExpression { return (left) => ({ t: 'strop', at: left.at, op: 'CONTAINS', left, right }); }
  / "=~" _ right:AddSubExpression { return (left) => ({ t: 'strop', at: left.at, op: '=~', left, right }); }
  / IN _ right:AddSubExpression { return (left) => ({ t: 'strop', at: left.at, op: 'IN', left, right }); }
  / IS __ NOT __ NULL { return (arg) => ({ t: 'isnull', at: arg.at, arg, negated: true }); }
  / IS __ NULL { return (arg) => ({ t: 'isnull', at: arg.at, arg, negated: false }); }

AddSubExpression
  = head:MulDivExpression tail:(_ op:$[+-] _ e:MulDivExpression { return [op, e]; })* {
      return leftAssoc(head, tail, (op, left, right) => ({ t: 'bin', at: left.at, op, left, right }));
    }

MulDivExpression
  = head:PowerExpression tail:(_ op:$[*/%] _ e:PowerExpression { return [op, e]; })* {
      return leftAssoc(head, tail, (op, left, right) => ({ t: 'bin', at: left.at, op, left, right }));
    }

PowerExpression
  = head:UnaryExpression tail:(_ "^" _ e:UnaryExpression { return ['^', e]; })* {
      return leftAssoc(head, tail, (op, left, right) => ({ t: 'bin', at: left.at, op, left, right }));
    }

UnaryExpression
  = "-" _ arg:UnaryExpression { return { t: 'neg', at: location().start.offset, arg }; }
  / "+" _ arg:UnaryExpression { return arg; }
  / PostfixExpression

PostfixExpression
  = atom:Atom ops:(_ op:PostfixOperator { return op; })* labels:(_ l:NodeLabels { return l; })? {
      const target = ops.reduce((target, op) => op(target), atom);
      return labels === null ? target : { t: 'haslabels', at: atom.at, target, labels };
    }

PostfixOperator
  = "." _ key:SchemaName { return (target) => ({ t: 'prop', at: target.at, target, key }); }
  / "[" _ from:Expression? _ ".." _ to:Expression? _ "]" { return (target) => ({ t: 'slice', at: target.at, target, from, to }); }
  / "[" _ index:Expression _ "]" { return (target) => ({ t: 'index', at: target.at, target, index }); }

Atom
  = Literal
  / Parameter
  / CaseExpression
  / COUNT _ "(" _ "*" _ ")" { return { t: 'countstar', at: location().start.offset }; }
  / BracketExpression
  / Quantifier
  / Reduce
  / Refused
  / &PatternStart p:PatternPredicate { return p; }
  / !PatternStart e:ParenthesizedExpression { return e; }
  / FunctionInvocation
  / v:Variable { return { t: 'var', at: location().start.offset, name: v }; }

// A parenthesis that opens a node pattern followed by a relationship starts a pattern predicate; the
// decision is taken by this scan alone (no backtracking into a parenthesised expression afterwards).
PatternStart
  = "(" _ Variable? _ NodeLabels? _ BalancedBraces? _ ")" _ ("<" _ "-" / "-" _ [-[])

BalancedBraces
  = "{" (Comment / StringLiteral / EscapedName / BalancedBraces / [^{}'"\x60/] / "/")* "}"

Refused
  = EXISTS _ "{" { options.refuse('EXISTS subqueries are not supported', location().start.offset); }
  / COUNT _ "{" { options.refuse('COUNT subqueries are not supported', location().start.offset); }
  / COLLECT _ "{" { options.refuse('COLLECT subqueries are not supported', location().start.offset); }
  / (SHORTESTPATH / ALLSHORTESTPATHS) _ "(" { options.refuse('shortestPath and allShortestPaths are supported only in MATCH', location().start.offset); }
  / "{" _ (SymbolicName / [0-9]+) _ "}" { options.refuse('user-specified parameters are not supported', location().start.offset); }
  / (FILTER / EXTRACT) _ "(" { options.refuse('filter() and extract() are not supported (use a list comprehension)', location().start.offset); }

Literal
  = NumberLiteral
  / StringLiteral
  / TRUE { return { t: 'lit', at: location().start.offset, value: true }; }
  / FALSE { return { t: 'lit', at: location().start.offset, value: false }; }
  / NULL { return { t: 'lit', at: location().start.offset, value: null }; }
  / MapLiteral

NumberLiteral "number"
  = s:$([0-9]* "." [0-9]+ Exponent? / [0-9]+ Exponent) !IdentPart {
      return { t: 'lit', at: location().start.offset, value: Number(s), float: true };
    }
  / "0x" s:$[0-9a-fA-F]+ !IdentPart { return { t: 'lit', at: location().start.offset, value: options.integer(s, 16, location().start.offset) }; }
  / "0o" s:$[0-7]+ !IdentPart { return { t: 'lit', at: location().start.offset, value: options.integer(s, 8, location().start.offset) }; }
  / s:$[0-9]+ !IdentPart { return { t: 'lit', at: location().start.offset, value: options.integer(s, 10, location().start.offset) }; }

Exponent
  = [eE] [+-]? [0-9]+

StringLiteral "string"
  = "'" chars:(SingleChar / Escape)* "'" { return { t: 'lit', at: location().start.offset, value: chars.join('') }; }
  / '"' chars:(DoubleChar / Escape)* '"' { return { t: 'lit', at: location().start.offset, value: chars.join('') }; }

SingleChar
  = $[^'\\]+

DoubleChar
  = $[^"\\]+

Escape
  = "\\" c:(
        "\\" / "'" / '"'
      / "b" { return '\b'; } / "f" { return '\f'; } / "n" { return '\n'; } / "r" { return '\r'; } / "t" { return '\t'; }
      / [uU] h:$([0-9a-fA-F][0-9a-fA-F][0-9a-fA-F][0-9a-fA-F]) { return String.fromCharCode(parseInt(h, 16)); }
      / . { options.refuse('invalid escape sequence', location().start.offset - 1); }
    ) { return c; }

MapLiteral
  = "{" _ entries:(head:MapEntry tail:(_ "," _ e:MapEntry { return e; })* { return [head, ...tail]; })? _ "}" {
      return { t: 'map', at: location().start.offset, entries: entries ?? [] };
    }

MapEntry
  = key:SchemaName _ ":" _ value:Expression { return [key, value]; }

Parameter
  = "$" name:(SymbolicName / $[0-9]+) { return { t: 'param', at: location().start.offset, name }; }

CaseExpression
  = CASE _ subject:(!WHEN e:Expression _ { return e; })? whens:(WHEN _ w:Expression _ THEN _ v:Expression _ { return [w, v]; })+
    otherwise:(ELSE _ e:Expression _ { return e; })? END {
      return { t: 'case', at: location().start.offset, subject, whens, otherwise };
    }

// List literals and list / pattern comprehensions share their opening; the first expression is
// parsed once and what follows it decides (so nested brackets never parse twice).
BracketExpression
  = "[" _ "]" { return { t: 'list', at: location().start.offset, items: [] }; }
  / "[" _ first:Expression _ tail:BracketTail _ "]" { return options.bracket(first, tail, location().start.offset); }

BracketTail
  = where:(w:Where _ { return w; })? "|" _ map:Expression { return { kind: 'comprehension', where, map }; }
  / where:Where { return { kind: 'comprehension', where, map: null }; }
  / items:(_ "," _ e:Expression { return e; })* { return { kind: 'list', items }; }

Quantifier
  = kind:(ALL / ANY / NONE / SINGLE) _ "(" _ variable:Variable __ IN _ list:Expression where:(_ w:Where { return w; })? _ ")" {
      return { t: 'quant', at: location().start.offset, kind: kind.toLowerCase(), variable, list, where };
    }

Reduce
  = REDUCE _ "(" _ acc:Variable _ "=" _ init:Expression _ "," _ variable:Variable __ IN _ list:Expression _ "|" _ map:Expression _ ")" {
      return { t: 'reduce', at: location().start.offset, acc, init, variable, list, map };
    }

PatternPredicate
  = chain:RelationshipsChain { return { t: 'pattern', at: location().start.offset, pattern: { at: location().start.offset, pathVariable: null, shortest: null, ...chain } }; }

RelationshipsChain
  = head:NodePattern tail:(_ r:RelationshipPattern _ n:NodePattern { return [r, n]; })+ {
      return { nodes: [head, ...tail.map((x) => x[1])], rels: tail.map((x) => x[0]) };
    }

ParenthesizedExpression
  = "(" _ e:Expression _ ")" { return e; }

FunctionInvocation
  = name:FunctionName _ "(" _ distinct:(DISTINCT _)? args:(head:Expression tail:(_ "," _ e:Expression { return e; })* { return [head, ...tail]; })? _ ")" {
      return { t: 'call', at: location().start.offset, name, distinct: distinct !== null, args: args ?? [] };
    }

FunctionName "function name"
  = ns:(n:SymbolicName _ "." _ { return n; })* name:(SymbolicName / EXISTS / $(COUNT)) { return [...ns, name].join('.'); }

// ---- names

Variable "variable"
  = SymbolicName

SymbolicName
  = !ReservedWord name:$(IdentStart IdentPart*) { return name; }
  / EscapedName

SchemaName "name"
  = name:$(IdentStart IdentPart*) { return name; }
  / EscapedName

EscapedName
  = "\x60" parts:($[^\x60]+ / "\x60\x60" { return "\x60"; })* "\x60" {
      const name = parts.join('');
      if (name.length === 0) options.refuse('empty names are not allowed', location().start.offset);
      return name;
    }

IdentStart = [A-Za-z_\u00C0-\uFFFF]
IdentPart = [A-Za-z0-9_\u00C0-\uFFFF]

ReservedWord
  = (ALL / ASCENDING / ASC / BY / CREATE / DELETE / DESCENDING / DESC / DETACH / EXISTS / LIMIT / MATCH / MERGE / ON
    / OPTIONAL / ORDER / REMOVE / RETURN / SET / SKIP / WHERE / WITH / UNION / UNWIND / AND / AS / CONTAINS / DISTINCT
    / ENDS / IN / IS / NOT / OR / STARTS / XOR / CASE / WHEN / THEN / ELSE / END / FALSE / TRUE / NULL / CONSTRAINT
    / DO / FOR / REQUIRE / UNIQUE / MANDATORY / SCALAR / OF / ADD / DROP)

// ---- whitespace and comments

_ "whitespace"
  = ([ \t\r\n\u00A0\uFEFF\u2000-\u200B\u2028\u2029\u3000] / Comment)*

__ "whitespace"
  = ([ \t\r\n\u00A0\uFEFF\u2000-\u200B\u2028\u2029\u3000] / Comment)+

Comment
  = "//" [^\n]*
  / "/*" (!"*/" .)* "*/"

// ---- keywords (any case, never followed by a name character)

ADD = "ADD"i !IdentPart { return 'ADD'; }
ALL = "ALL"i !IdentPart { return 'ALL'; }
ALLSHORTESTPATHS = "allShortestPaths"i !IdentPart { return 'ALLSHORTESTPATHS'; }
AND = "AND"i !IdentPart { return 'AND'; }
ANY = "ANY"i !IdentPart { return 'ANY'; }
AS = "AS"i !IdentPart { return 'AS'; }
ASC = "ASC"i !IdentPart { return 'ASC'; }
ASCENDING = "ASCENDING"i !IdentPart { return 'ASCENDING'; }
BY = "BY"i !IdentPart { return 'BY'; }
CALL = "CALL"i !IdentPart { return 'CALL'; }
CASE = "CASE"i !IdentPart { return 'CASE'; }
COLLECT = "COLLECT"i !IdentPart { return 'COLLECT'; }
CONSTRAINT = "CONSTRAINT"i !IdentPart { return 'CONSTRAINT'; }
CONTAINS = "CONTAINS"i !IdentPart { return 'CONTAINS'; }
COUNT = "COUNT"i !IdentPart { return 'COUNT'; }
CREATE = "CREATE"i !IdentPart { return 'CREATE'; }
CSV = "CSV"i !IdentPart { return 'CSV'; }
DATABASE = "DATABASE"i !IdentPart { return 'DATABASE'; }
DELETE = "DELETE"i !IdentPart { return 'DELETE'; }
DESC = "DESC"i !IdentPart { return 'DESC'; }
DESCENDING = "DESCENDING"i !IdentPart { return 'DESCENDING'; }
DETACH = "DETACH"i !IdentPart { return 'DETACH'; }
DISTINCT = "DISTINCT"i !IdentPart { return 'DISTINCT'; }
DO = "DO"i !IdentPart { return 'DO'; }
DROP = "DROP"i !IdentPart { return 'DROP'; }
ELSE = "ELSE"i !IdentPart { return 'ELSE'; }
END = "END"i !IdentPart { return 'END'; }
ENDS = "ENDS"i !IdentPart { return 'ENDS'; }
EXISTS = "EXISTS"i !IdentPart { return 'exists'; }
EXPLAIN = "EXPLAIN"i !IdentPart { return 'EXPLAIN'; }
EXTRACT = "EXTRACT"i !IdentPart { return 'EXTRACT'; }
FALSE = "FALSE"i !IdentPart { return 'FALSE'; }
FILTER = "FILTER"i !IdentPart { return 'FILTER'; }
FOR = "FOR"i !IdentPart { return 'FOR'; }
FOREACH = "FOREACH"i !IdentPart { return 'FOREACH'; }
FULLTEXT = "FULLTEXT"i !IdentPart { return 'FULLTEXT'; }
IN = "IN"i !IdentPart { return 'IN'; }
INDEX = "INDEX"i !IdentPart { return 'INDEX'; }
IS = "IS"i !IdentPart { return 'IS'; }
LIMIT = "LIMIT"i !IdentPart { return 'LIMIT'; }
LOAD = "LOAD"i !IdentPart { return 'LOAD'; }
LOOKUP = "LOOKUP"i !IdentPart { return 'LOOKUP'; }
MANDATORY = "MANDATORY"i !IdentPart { return 'MANDATORY'; }
MATCH = "MATCH"i !IdentPart { return 'MATCH'; }
MERGE = "MERGE"i !IdentPart { return 'MERGE'; }
NONE = "NONE"i !IdentPart { return 'NONE'; }
NOT = "NOT"i !IdentPart { return 'NOT'; }
NULL = "NULL"i !IdentPart { return 'NULL'; }
OF = "OF"i !IdentPart { return 'OF'; }
ON = "ON"i !IdentPart { return 'ON'; }
OPTIONAL = "OPTIONAL"i !IdentPart { return 'OPTIONAL'; }
OR = "OR"i !IdentPart { return 'OR'; }
ORDER = "ORDER"i !IdentPart { return 'ORDER'; }
POINT = "POINT"i !IdentPart { return 'POINT'; }
PROFILE = "PROFILE"i !IdentPart { return 'PROFILE'; }
RANGE = "RANGE"i !IdentPart { return 'RANGE'; }
REDUCE = "REDUCE"i !IdentPart { return 'REDUCE'; }
REMOVE = "REMOVE"i !IdentPart { return 'REMOVE'; }
REQUIRE = "REQUIRE"i !IdentPart { return 'REQUIRE'; }
RETURN = "RETURN"i !IdentPart { return 'RETURN'; }
SCALAR = "SCALAR"i !IdentPart { return 'SCALAR'; }
SET = "SET"i !IdentPart { return 'SET'; }
SHORTESTPATH = "shortestPath"i !IdentPart { return 'SHORTESTPATH'; }
SINGLE = "SINGLE"i !IdentPart { return 'SINGLE'; }
SKIP = "SKIP"i !IdentPart { return 'SKIP'; }
START = "START"i !IdentPart { return 'START'; }
STARTS = "STARTS"i !IdentPart { return 'STARTS'; }
TEXT = "TEXT"i !IdentPart { return 'TEXT'; }
THEN = "THEN"i !IdentPart { return 'THEN'; }
TRUE = "TRUE"i !IdentPart { return 'TRUE'; }
UNION = "UNION"i !IdentPart { return 'UNION'; }
UNIQUE = "UNIQUE"i !IdentPart { return 'UNIQUE'; }
UNWIND = "UNWIND"i !IdentPart { return 'UNWIND'; }
USE = "USE"i !IdentPart { return 'USE'; }
USING = "USING"i !IdentPart { return 'USING'; }
WHEN = "WHEN"i !IdentPart { return 'WHEN'; }
WHERE = "WHERE"i !IdentPart { return 'WHERE'; }
WITH = "WITH"i !IdentPart { return 'WITH'; }
XOR = "XOR"i !IdentPart { return 'XOR'; }
`;
