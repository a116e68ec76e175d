"""The function allow-list: what a query may call, per dialect (issue 11).

Two parts, both reviewed by hand:

* ``TYPED``: sqlglot's typed function expressions (``exp.Lower``, ``exp.Sum``, ...) that
  compute a value from their arguments only. Generated from ``exp.ALL_FUNCTIONS`` by
  ``python -m vitrina.sql.guard.allowed_functions`` minus ``TYPED_REJECTED`` (row
  generators, file readers, sequences, session and server facts, AI and ML calls). The
  guard runs sqlglot's rendering of the query, so a typed function runs as sqlglot
  prints it, whatever spelling the caller used. A class that a newer sqlglot adds is in
  neither list and is refused until someone reviews it (``tests/test_guard_allowlist.py``
  names it).
* ``ANONYMOUS``: names sqlglot does not type (``age``, ``make_date``, ``epoch_ms``, ...),
  per dialect. A dialect not listed gets none: unknown must not mean laxer.

Table functions: none by default (``TABLE_FUNCTIONS``); every relation is a catalog table,
a CTE of the same statement, a subquery or a VALUES list.

>>> is_allowed_function("Lower", None, "postgres"), is_allowed_function("ReadCSV", None, "duckdb")
(True, False)
>>> (
...     is_allowed_function("Anonymous", "make_date", "postgres"),
...     is_allowed_function("Anonymous", "ts_rewrite", "postgres"),
... )
(True, False)
"""

from __future__ import annotations


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Typed functions that compute from their arguments (generated, then reviewed).
TYPED: frozenset[str] = _names(
    """
    Abs Acos Acosh AddMonths Agg And AnyValue ApproxDistinct ApproxPercentileAccumulate
    ApproxPercentileCombine ApproxPercentileEstimate ApproxQuantile ApproxQuantiles ApproxTopK
    ApproxTopKAccumulate ApproxTopKCombine ApproxTopKEstimate ApproxTopSum ApproximateSimilarity
    ArgMax ArgMin Array ArrayAgg ArrayAll ArrayAny ArrayAppend ArrayCompact ArrayConcat
    ArrayConcatAgg ArrayConstructCompact ArrayContainedBy ArrayContains ArrayContainsAll
    ArrayDistinct ArrayExcept ArrayFilter ArrayFirst ArrayInsert ArrayIntersect ArrayLast
    ArrayMax ArrayMin ArrayOverlaps ArrayPosition ArrayPrepend ArrayRemove ArrayRemoveAt
    ArrayReverse ArraySize ArraySlice ArraySort ArraySum ArrayToString ArrayUnionAgg
    ArrayUniqueAgg ArraysZip Ascii Asin Asinh Atan Atan2 Atanh Avg Base64DecodeBinary
    Base64DecodeString Base64Encode BitLength BitmapBitPosition BitmapBucketNumber
    BitmapConstructAgg BitmapCount BitmapOrAgg BitwiseAndAgg BitwiseCount BitwiseOrAgg
    BitwiseXorAgg Booland Boolnot Boolor BoolxorAgg ByteLength Case Cast CastToStrType Cbrt Ceil
    CheckJson Chr CityHash64 Coalesce CodePointsToBytes CodePointsToString Collate Collation
    Columns Concat ConcatWs Contains Convert ConvertTimezone ConvertToCharset Corr Cos Cosh
    CosineDistance Cot Coth Count CountIf CovarPop CovarSamp Csc Csch CumeDist CurrentDate
    CurrentDatetime CurrentTime CurrentTimestamp CurrentTimestampLTZ Date DateAdd DateBin
    DateDiff DateFromParts DateFromUnixDate DateStrToDate DateSub DateToDateStr DateToDi
    DateTrunc Datetime DatetimeAdd DatetimeDiff DatetimeSub DatetimeTrunc Day DayOfMonth
    DayOfWeek DayOfWeekIso DayOfYear Dayname Decode DecodeCase Degrees DenseRank DiToDate
    DotProduct Elt Encode EndsWith EqualNull EuclideanDistance Exists Exp Extract Factorial
    FarmFingerprint First FirstValue Float64 Floor Format FromBase FromBase32 FromBase64
    FromISO8601Date FromISO8601Timestamp FromISO8601TimestampNanos FromJson GetIgnoreCase Getbit
    Greatest GroupConcat Grouping GroupingId HashAgg Hex HexDecodeString Hll Host Hour If
    Initcap Int64 IsArray IsAscii IsInf IsNan IsNullValue JSONArray JSONArrayAgg JSONArrayAppend
    JSONArrayContains JSONArrayInsert JSONBContains JSONBContainsAllTopKeys
    JSONBContainsAnyTopKeys JSONBContainsTopKey JSONBDeleteAtPath JSONBExists JSONBExtract
    JSONBExtractScalar JSONBObjectAgg JSONBPathExists JSONBool JSONCast JSONExists JSONExtract
    JSONExtractArray JSONExtractScalar JSONFormat JSONKeys JSONKeysAtDepth JSONObject
    JSONObjectAgg JSONRemove JSONSet JSONStripNulls JSONType JSONValueArray
    JarowinklerSimilarity JustifyDays JustifyHours JustifyInterval Kurtosis Lag Last LastDay
    LastValue LaxBool LaxFloat64 LaxInt64 LaxString Lead Least Left Length Levenshtein List Ln
    Localtime Localtimestamp Log LogicalAnd LogicalOr Lower LowerHex MD5 MD5Digest
    MD5NumberLower64 MD5NumberUpper64 MakeInterval ManhattanDistance Map MapCat MapContainsKey
    MapDelete MapFromEntries MapInsert MapKeys MapPick MapSize Max Median Min Minhash
    MinhashCombine Minute Mode Month Monthname MonthsBetween Nanvl Negative NetFunc NextDay
    Normalize NthValue Ntile Nullif NumberToStr Nvl2 ObjectAgg ObjectInsert ObjectTransform Or
    Overlay Pad ParseBignumeric ParseDatetime ParseIp ParseJSON ParseNumeric ParseTime ParseUrl
    PercentRank PercentileCont PercentileDisc Pi Pow PreviousDay Quantile Quarter Radians Rand
    RangeBucket RangeN Rank Reduce RegDomain RegexpCount RegexpExtract RegexpExtractAll
    RegexpFullMatch RegexpILike RegexpInstr RegexpLike RegexpReplace RegexpSplit RegexpSubstr
    RegrAvgx RegrAvgy RegrCount RegrIntercept RegrR2 RegrSlope RegrSxx RegrSxy RegrSyy RegrValx
    RegrValy Repeat Replace Reverse Right Rint Round RowNumber RtrimmedLength SHA SHA1Digest
    SHA2 SHA2Digest SafeAdd SafeConvertBytesToString SafeDivide SafeFunc SafeMultiply SafeNegate
    SafeSubtract Sec Sech Second Sign Sin Sinh Skewness Soundex SoundexP123 Space Split
    SplitPart Sqrt StandardHash StarMap StartsWith Stddev StddevPop StddevSamp StrPosition
    StrToDate StrToMap StrToTime StrToUnix String StringToArray StripNullValue Strtok
    StrtokToArray Struct StructExtract Stuff Substring SubstringIndex Sum Systimestamp Tan Tanh
    Time TimeAdd TimeDiff TimeFromParts TimeSlice TimeStrToDate TimeStrToTime TimeStrToUnix
    TimeSub TimeToStr TimeToTimeStr TimeToUnix TimeTrunc Timestamp TimestampAdd TimestampDiff
    TimestampFromParts TimestampLtzFromParts TimestampSub TimestampTrunc TimestampTzFromParts
    ToArray ToBase32 ToBase64 ToBinary ToBoolean ToChar ToCodePoints ToDays ToDecfloat ToDouble
    ToMap ToNumber ToVariant Transform Translate Trim Trunc Try TryBase64DecodeBinary
    TryBase64DecodeString TryCast TryHexDecodeBinary TryHexDecodeString TryToDecfloat TsOrDiToDi
    TsOrDsAdd TsOrDsDiff TsOrDsToDate TsOrDsToDateStr TsOrDsToDatetime TsOrDsToTime
    TsOrDsToTimestamp Typeof Unhex Unicode UnixDate UnixMicros UnixMillis UnixSeconds UnixToStr
    UnixToTime UnixToTimeStr Upper UtcDate UtcTime UtcTimestamp Uuid VarMap Variance VariancePop
    Week WeekOfYear WeekStart WidthBucket Xor Year YearOfWeek YearOfWeekIso
    """
)

# Typed functions refused, and why (the review of exp.ALL_FUNCTIONS):
# row generators and table functions (GenerateSeries, Unnest, Explode, Flatten, Stack, ...),
# file and network readers (ReadCSV, ReadParquet, ToFile), sequences (NextValueFor, Seq*),
# session, server and account facts (Current* except the clock, SessionUser), dynamic names
# (DynamicIdentifier), secrets and ciphers, AI/ML/vector calls, XML (external entities),
# other engines' full-text and hierarchy functions, random generators that size their output.
TYPED_REJECTED: frozenset[str] = _names(
    """
    AIAgg AIClassify AIEmbed AIForecast AIGenerate AISimilarity AISummarizeAgg AnonymousAggFunc
    Apply CheckXml CombinedAggFunc CombinedParameterizedAgg Compress ConnectByRoot
    CurrentAccount CurrentAccountName CurrentAvailableRoles CurrentCatalog CurrentClient
    CurrentDatabase CurrentIpAddress CurrentOrganizationName CurrentOrganizationUser
    CurrentRegion CurrentRole CurrentRoleType CurrentSchema CurrentSchemas CurrentSecondaryRoles
    CurrentSession CurrentStatement CurrentTimezone CurrentTransaction CurrentUser CurrentUserId
    CurrentVersion CurrentWarehouse DecompressBinary DecompressString Decrypt DecryptRaw
    DynamicIdentifier Encrypt EncryptRaw Explode ExplodingGenerateSeries FeaturesAtTime Flatten
    GapFill GenerateBool GenerateDateArray GenerateDouble GenerateEmbedding GenerateInt
    GenerateSeries GenerateTable GenerateText GenerateTimestampArray Generator GetExtract Inline
    JSONTable MLForecast MLTranslate MatchAgainst NextValueFor Normal ObjectId OpenJSON
    ParameterizedAgg Posexplode PosexplodeOuter Predict Randn Randstr ReadCSV ReadParquet Search
    SearchIp Secret Seq1 Seq2 Seq4 Seq8 SessionUser Shuffle SplitToTable StDistance StPoint
    Stack StrtokSplitToTable ToFile Uniform Unnest VectorSearch WeightString XMLElement XMLGet
    XMLTable Zipf _ExplodeOuter
    """
)

# Names sqlglot leaves as exp.Anonymous, reviewed one by one: pure computations on values.
_COMMON_ANONYMOUS = frozenset(
    {"abs", "sign", "sqrt", "cbrt", "exp", "ln", "log", "log10", "log2", "degrees", "radians"}
    | {"upper", "lower", "ltrim", "rtrim", "btrim", "reverse", "md5", "ascii", "bit_length"}
    | {"char_length", "character_length", "octet_length", "ends_with", "split_part"}
    | {"sum", "avg", "stddev", "stddev_pop", "stddev_samp", "variance", "var_pop", "var_samp"}
    | {"bool_and", "bool_or", "bit_and", "bit_or", "bit_xor", "ntile", "first_value"}
    | {"last_value", "kurtosis", "skewness", "date_part", "datepart", "date_diff", "datediff"}
    | {"make_time", "age", "nullif", "translate", "overlay", "gcd", "lcm"}
)
POSTGRES_ANONYMOUS = _COMMON_ANONYMOUS | frozenset(
    {"make_date", "make_timestamptz", "every", "num_nonnulls", "num_nulls", "cardinality"}
    | {"justify_days", "justify_hours", "justify_interval", "isfinite", "timezone"}
    | {"clock_timestamp", "statement_timestamp", "transaction_timestamp", "date_add"}
    | {"regexp_match", "regexp_matches", "regexp_split_to_array", "array_upper", "array_lower"}
    | {"array_remove", "array_append", "array_prepend", "array_cat", "quote_literal"}
    | {"to_json", "to_jsonb", "row_to_json", "json_build_object", "jsonb_build_object"}
    | {"json_build_array", "jsonb_build_array", "json_agg", "jsonb_agg", "json_object_agg"}
    | {"jsonb_object_agg", "json_extract_path", "jsonb_extract_path", "json_extract_path_text"}
    | {"jsonb_extract_path_text", "json_array_length", "jsonb_array_length", "json_typeof"}
    | {"jsonb_typeof", "jsonb_pretty", "initcap", "repeat", "lpad", "rpad", "to_char"}
)
DUCKDB_ANONYMOUS = _COMMON_ANONYMOUS | frozenset(
    {"date_sub", "list_aggregate", "list_sum", "list_avg", "list_min", "list_max", "list_sort"}
    | {"list_reverse_sort", "list_slice", "list_extract", "list_element", "list_has"}
    | {"array_has", "list_concat", "list_count", "suffix", "prefix", "printf", "bar"}
    | {"histogram", "product", "fsum", "favg", "sumkahan", "count_star", "isoyear", "isodow"}
    | {"yearweek", "weekday", "weekofyear", "dayofweek", "dayofmonth", "dayofyear", "year"}
    | {"month", "day", "quarter", "hour", "minute", "second", "millisecond", "microsecond"}
    | {"century", "decade", "era", "round_even", "even", "strlen", "length_grapheme", "hash"}
    | {"json_value", "json_array_length", "json_keys", "now", "get_current_timestamp"}
    | {"to_days", "to_weeks", "to_months", "to_years", "to_hours", "to_minutes", "to_seconds"}
    | {"mad", "entropy", "epoch", "epoch_us", "epoch_ms", "epoch_ns", "typeof", "try_cast"}
    | {"ucase", "lcase", "arbitrary", "max_by", "min_by", "median", "ifnull", "string_agg"}
)
# SQLite has no DATE_TRUNC: the compiler buckets dates with date() modifiers and strftime()
SQLITE_ANONYMOUS = _COMMON_ANONYMOUS | frozenset(
    {"date", "datetime", "strftime", "julianday", "printf", "ifnull", "substr", "instr"}
)
# MariaDB / MySQL: the date functions the compiler uses (DATE_FORMAT, MAKEDATE, WEEKDAY)
# and the usual string and number helpers
MYSQL_ANONYMOUS = _COMMON_ANONYMOUS | frozenset(
    {"date_format", "str_to_date", "makedate", "maketime", "last_day", "weekday", "dayofweek"}
    | {"dayofmonth", "dayofyear", "weekofyear", "yearweek", "quarter", "year", "month", "day"}
    | {"hour", "minute", "second", "monthname", "dayname", "date_add", "date_sub", "adddate"}
    | {"subdate", "timestampdiff", "timestampadd", "period_add", "period_diff", "to_days"}
    | {"from_days", "curdate", "time_format", "sec_to_time", "time_to_sec", "ifnull", "if"}
    | {"concat_ws", "substring_index", "lpad", "rpad", "repeat", "locate", "instr", "field"}
    | {"elt", "format", "truncate", "mod", "ceiling", "floor", "any_value", "bit_count"}
    | {"json_extract", "json_unquote", "json_length", "json_keys", "std", "ucase", "lcase"}
    | {"space", "strcmp", "group_concat", "median"}
)
# SQL Server: DATEFROMPARTS, EOMONTH and friends (the compiler's month and quarter buckets)
TSQL_ANONYMOUS = _COMMON_ANONYMOUS | frozenset(
    {"datefromparts", "eomonth", "datename", "dateadd", "datetrunc", "datediff_big", "isnull"}
    | {"iif", "choose", "len", "datalength", "charindex", "patindex", "replicate", "square"}
    | {"string_agg", "concat_ws", "try_convert", "sysdatetime", "getdate", "getutcdate"}
    | {"ceiling", "floor", "year", "month", "day", "isnumeric", "count_big", "format"}
)
TRINO_ANONYMOUS = _COMMON_ANONYMOUS | frozenset(
    {"format_datetime", "date_format", "date_parse", "day_of_week", "dow", "day_of_month"}
    | {"day_of_year", "doy", "week_of_year", "year_of_week", "last_day_of_month", "date_add"}
    | {"from_iso8601_date", "to_iso8601", "date_trunc", "approx_distinct", "count_if"}
    | {"approx_percentile", "arbitrary", "any_value", "max_by", "min_by", "element_at"}
    | {"cardinality", "strpos", "codepoint", "typeof", "from_unixtime", "to_unixtime"}
    | {"truncate", "mod", "power", "ceiling", "floor", "bool_and", "bool_or", "every"}
    | {"geometric_mean", "year", "month", "day", "quarter", "week", "day_of_week"}
)
# ClickHouse: its date parts and buckets, conditional aggregates, plain value functions
# (names ClickHouse matches case-sensitively, matched here lower-cased)
CLICKHOUSE_ANONYMOUS = _COMMON_ANONYMOUS | frozenset(
    {"todate", "todate32", "todatetime", "tomonday", "tostartofweek", "tostartofmonth"}
    | {"tostartofquarter", "tostartofyear", "tostartofday", "toyear", "toquarter", "tomonth"}
    | {"todayofmonth", "todayofyear", "toyyyymm", "toyyyymmdd", "toisoweek", "toisoyear"}
    | {"datediff", "date_diff", "adddays", "addmonths", "addyears", "subtractdays"}
    | {"subtractmonths", "subtractyears", "uniq", "uniqexact", "sumif", "countif", "avgif"}
    | {"minif", "maxif", "anyif", "any", "anylast", "median", "quantile", "ifnull", "isnull"}
    | {"isnotnull", "tostring", "tofloat64", "toint64", "toint32", "todecimal64", "lowerutf8"}
    | {"upperutf8", "lengthutf8", "substring", "substringutf8", "positionutf8", "multiif"}
    | {"roundbankers", "intdiv", "modulo", "greatest", "least", "nullif"}
)
ANONYMOUS: dict[str, frozenset[str]] = {
    "clickhouse": CLICKHOUSE_ANONYMOUS,
    "postgres": POSTGRES_ANONYMOUS,
    "duckdb": DUCKDB_ANONYMOUS,
    "sqlite": SQLITE_ANONYMOUS,
    "mysql": MYSQL_ANONYMOUS,
    "tsql": TSQL_ANONYMOUS,
    "trino": TRINO_ANONYMOUS,
}

# Table functions a FROM may name, per dialect: none by default.
TABLE_FUNCTIONS: dict[str, frozenset[str]] = {}


def is_allowed_function(kind: str, name: str | None, dialect: str) -> bool:
    """``kind`` is the sqlglot class name; ``name`` the written name of an exp.Anonymous."""
    if kind in ("Anonymous", "AnonymousAggFunc"):
        return name is not None and name.lower() in ANONYMOUS.get(dialect, frozenset())
    return kind in TYPED


def unreviewed() -> list[str]:
    """sqlglot's typed functions in neither list (refused until reviewed)."""
    from sqlglot import exp

    return sorted(f.__name__ for f in exp.ALL_FUNCTIONS if f.__name__ not in TYPED | TYPED_REJECTED)


if __name__ == "__main__":  # print the candidates a sqlglot upgrade brings, for review
    print("\n".join(unreviewed()) or "every typed function is reviewed")
