#pragma once
// What the three schema-compiled methods (protobuf, flatbuffers, capnp) share: the field
// names of every record in canonical order, as the generated code spells them, and the
// generic walk that pairs the i-th model field with the i-th generated accessor.
//
// Each record's list is `X(snake, Camel)`: `snake` is the model member and the protoc/flatc
// accessor (`protected_` as both generators escape it), `Camel` the capnp accessor suffix
// (getCamel, hasCamel, setCamel, initCamel). A library binds a record by turning every entry
// into a generic lambda `(op, object, args...)` whose body names the accessor for `op`; only
// the ops a field's shape needs are ever instantiated. The lists must follow models.h: a
// missing or extra field fails the static_assert below, a misplaced one fails to compile or
// fails the golden vectors.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "methods/method.h"
#include "model/models.h"

// clang-format off
#define SB_SCHEMA_FIELDS_Part(X) \
  X(partkey, Partkey) \
  X(name, Name) \
  X(mfgr, Mfgr) \
  X(brand, Brand) \
  X(type, Type) \
  X(size, Size) \
  X(container, Container) \
  X(retailprice, Retailprice) \
  X(comment, Comment)
#define SB_SCHEMA_FIELDS_Supplier(X) \
  X(suppkey, Suppkey) \
  X(name, Name) \
  X(address, Address) \
  X(nationkey, Nationkey) \
  X(phone, Phone) \
  X(acctbal, Acctbal) \
  X(comment, Comment)
#define SB_SCHEMA_FIELDS_LineItem(X) \
  X(orderkey, Orderkey) \
  X(part, Part) \
  X(supplier, Supplier) \
  X(linenumber, Linenumber) \
  X(quantity, Quantity) \
  X(extendedprice, Extendedprice) \
  X(discount, Discount) \
  X(tax, Tax) \
  X(returnflag, Returnflag) \
  X(linestatus, Linestatus) \
  X(shipdate, Shipdate) \
  X(commitdate, Commitdate) \
  X(receiptdate, Receiptdate) \
  X(shipinstruct, Shipinstruct) \
  X(shipmode, Shipmode) \
  X(comment, Comment)
#define SB_SCHEMA_FIELDS_Order(X) \
  X(orderkey, Orderkey) \
  X(custkey, Custkey) \
  X(orderstatus, Orderstatus) \
  X(totalprice, Totalprice) \
  X(orderdate, Orderdate) \
  X(orderpriority, Orderpriority) \
  X(clerk, Clerk) \
  X(shippriority, Shippriority) \
  X(comment, Comment) \
  X(lineitems, Lineitems)
#define SB_SCHEMA_FIELDS_Customer(X) \
  X(custkey, Custkey) \
  X(name, Name) \
  X(address, Address) \
  X(nationkey, Nationkey) \
  X(phone, Phone) \
  X(acctbal, Acctbal) \
  X(mktsegment, Mktsegment) \
  X(comment, Comment) \
  X(orders, Orders)
#define SB_SCHEMA_FIELDS_Size(X) \
  X(w, W) \
  X(h, H) \
  X(resize, Resize)
#define SB_SCHEMA_FIELDS_Sizes(X) \
  X(thumb, Thumb) \
  X(small, Small) \
  X(medium, Medium) \
  X(large, Large)
#define SB_SCHEMA_FIELDS_Hashtag(X) \
  X(text, Text) \
  X(indices, Indices)
#define SB_SCHEMA_FIELDS_Url(X) \
  X(url, Url) \
  X(expanded_url, ExpandedUrl) \
  X(display_url, DisplayUrl) \
  X(indices, Indices)
#define SB_SCHEMA_FIELDS_Mention(X) \
  X(screen_name, ScreenName) \
  X(name, Name) \
  X(id, Id) \
  X(id_str, IdStr) \
  X(indices, Indices)
#define SB_SCHEMA_FIELDS_Media(X) \
  X(id, Id) \
  X(id_str, IdStr) \
  X(indices, Indices) \
  X(media_url, MediaUrl) \
  X(media_url_https, MediaUrlHttps) \
  X(url, Url) \
  X(display_url, DisplayUrl) \
  X(expanded_url, ExpandedUrl) \
  X(type, Type) \
  X(sizes, Sizes) \
  X(source_status_id, SourceStatusId) \
  X(source_status_id_str, SourceStatusIdStr)
#define SB_SCHEMA_FIELDS_Entities(X) \
  X(hashtags, Hashtags) \
  X(symbols, Symbols) \
  X(urls, Urls) \
  X(user_mentions, UserMentions) \
  X(media, Media)
#define SB_SCHEMA_FIELDS_ExtendedEntities(X) \
  X(media, Media)
#define SB_SCHEMA_FIELDS_BoundingBox(X) \
  X(type, Type) \
  X(coordinates, Coordinates)
#define SB_SCHEMA_FIELDS_Place(X) \
  X(id, Id) \
  X(url, Url) \
  X(place_type, PlaceType) \
  X(name, Name) \
  X(full_name, FullName) \
  X(country_code, CountryCode) \
  X(country, Country) \
  X(bounding_box, BoundingBox)
#define SB_SCHEMA_FIELDS_Coordinates(X) \
  X(type, Type) \
  X(coordinates, Coordinates)
#define SB_SCHEMA_FIELDS_User(X) \
  X(id, Id) \
  X(id_str, IdStr) \
  X(name, Name) \
  X(screen_name, ScreenName) \
  X(location, Location) \
  X(url, Url) \
  X(description, Description) \
  X(protected_, Protected) \
  X(verified, Verified) \
  X(followers_count, FollowersCount) \
  X(friends_count, FriendsCount) \
  X(listed_count, ListedCount) \
  X(favourites_count, FavouritesCount) \
  X(statuses_count, StatusesCount) \
  X(created_at, CreatedAt) \
  X(utc_offset, UtcOffset) \
  X(time_zone, TimeZone) \
  X(geo_enabled, GeoEnabled) \
  X(lang, Lang) \
  X(contributors_enabled, ContributorsEnabled) \
  X(is_translator, IsTranslator) \
  X(profile_background_color, ProfileBackgroundColor) \
  X(profile_background_image_url, ProfileBackgroundImageUrl) \
  X(profile_background_image_url_https, ProfileBackgroundImageUrlHttps) \
  X(profile_background_tile, ProfileBackgroundTile) \
  X(profile_image_url, ProfileImageUrl) \
  X(profile_image_url_https, ProfileImageUrlHttps) \
  X(profile_banner_url, ProfileBannerUrl) \
  X(profile_link_color, ProfileLinkColor) \
  X(profile_sidebar_border_color, ProfileSidebarBorderColor) \
  X(profile_sidebar_fill_color, ProfileSidebarFillColor) \
  X(profile_text_color, ProfileTextColor) \
  X(profile_use_background_image, ProfileUseBackgroundImage) \
  X(default_profile, DefaultProfile) \
  X(default_profile_image, DefaultProfileImage) \
  X(following, Following) \
  X(follow_request_sent, FollowRequestSent) \
  X(notifications, Notifications)
#define SB_SCHEMA_FIELDS_Tweet(X) \
  X(created_at, CreatedAt) \
  X(id, Id) \
  X(id_str, IdStr) \
  X(text, Text) \
  X(source, Source) \
  X(truncated, Truncated) \
  X(in_reply_to_status_id, InReplyToStatusId) \
  X(in_reply_to_user_id, InReplyToUserId) \
  X(in_reply_to_screen_name, InReplyToScreenName) \
  X(user, User) \
  X(coordinates, Coordinates) \
  X(place, Place) \
  X(quoted_status_id, QuotedStatusId) \
  X(is_quote_status, IsQuoteStatus) \
  X(quoted_status, QuotedStatus) \
  X(retweeted_status, RetweetedStatus) \
  X(quote_count, QuoteCount) \
  X(reply_count, ReplyCount) \
  X(retweet_count, RetweetCount) \
  X(favorite_count, FavoriteCount) \
  X(entities, Entities) \
  X(extended_entities, ExtendedEntities) \
  X(favorited, Favorited) \
  X(retweeted, Retweeted) \
  X(possibly_sensitive, PossiblySensitive) \
  X(filter_level, FilterLevel) \
  X(lang, Lang) \
  X(display_text_range, DisplayTextRange)
#define SB_SCHEMA_FIELDS_Entry(X) \
  X(position, Position) \
  X(value, Value)
#define SB_SCHEMA_FIELDS_SparseVector(X) \
  X(dimension, Dimension) \
  X(entries, Entries)
#define SB_SCHEMA_FIELDS_Trade(X) \
  X(source_id, SourceId) \
  X(special, Special) \
  X(order_code, OrderCode) \
  X(priority, Priority) \
  X(prices, Prices) \
  X(quantities, Quantities)
#define SB_SCHEMA_FIELDS_Attr(X) \
  X(id, Id) \
  X(quantity, Quantity) \
  X(amount, Amount) \
  X(active, Active) \
  X(percent, Percent) \
  X(size, Size)
#define SB_SCHEMA_FIELDS_Org(X) \
  X(name, Name) \
  X(category, Category) \
  X(country, Country) \
  X(type, Type) \
  X(attributes, Attributes)
#define SB_SCHEMA_FIELDS_Arrays(X) \
  X(strings, Strings) \
  X(ints, Ints)

#define SB_SCHEMA_RECORDS(X) \
  X(Part) \
  X(Supplier) \
  X(LineItem) \
  X(Order) \
  X(Customer) \
  X(Size) \
  X(Sizes) \
  X(Hashtag) \
  X(Url) \
  X(Mention) \
  X(Media) \
  X(Entities) \
  X(ExtendedEntities) \
  X(BoundingBox) \
  X(Place) \
  X(Coordinates) \
  X(User) \
  X(Tweet) \
  X(Entry) \
  X(SparseVector) \
  X(Trade) \
  X(Attr) \
  X(Org) \
  X(Arrays)
// clang-format on

namespace serbench::schema {

// The accessor a bound field's lambda is asked for.
struct Get {};    // the value (reader side)
struct Has {};    // presence of an optional or message field
struct Set {};    // set a scalar or string
struct Mut {};    // protobuf: the mutable sub-message or repeated field
struct Clear {};  // protobuf: clear the field
struct Add {};    // flatbuffers: add the field to a table builder
struct Init {};   // capnp: init a struct or list field

// Calls f(model_field, bound_accessor, index) for every field of record R, where B::fields()
// is R's bound accessor list.
template <class R, class B, class F>
void for_each_bound(F&& f) {
  constexpr std::size_t n = field_count<R>;
  static_assert(std::tuple_size_v<decltype(B::fields())> == n,
                "the accessor list does not match the model's fields");
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (f(std::get<I>(R::fields()), std::get<I>(B::fields()), std::integral_constant<std::size_t, I>{}),
     ...);
  }
  (std::make_index_sequence<n>{});
}

// Scalars: stored inline, optional ones with a presence flag rather than a null pointer.
template <class T>
inline constexpr bool is_scalar =
    shape_v<T> == Shape::boolean || shape_v<T> == Shape::integer || shape_v<T> == Shape::f64 ||
    shape_v<T> == Shape::enumeration;

// An enum read from the wire: generated enums are open, the model's are not.
template <class E>
E to_enum(int64_t v) {
  if (v < 0 || uint64_t(v) >= EnumSymbols<E>::names.size())
    decode_error(0, "enum ordinal " + std::to_string(v) + " is out of range");
  return E(v);
}

// A required nested record that the bytes do not hold (writers always set it).
template <class T>
[[noreturn]] void missing_record() {
  decode_error(0, "required " + std::string(T::name_of) + " is missing");
}

// Makes an absent optional (std::optional or the tweets' unique_ptr) present; returns the value.
template <class T>
auto& emplace(T& out) {
  if constexpr (is_specialization<T, std::unique_ptr>) {
    out = std::make_unique<value_t<T>>();
    return *out;
  } else {
    return out.emplace();
  }
}

// One stored object of each model type, kept by a method for reuse across objects.
template <template <class> class Of, class L>
struct PerModel;
template <template <class> class Of, class... M>
struct PerModel<Of, TypeList<M...>> {
  std::tuple<Of<M>...> items;
  template <class M1>
  Of<M1>& get() {
    return std::get<Of<M1>>(items);
  }
};

}  // namespace serbench::schema
