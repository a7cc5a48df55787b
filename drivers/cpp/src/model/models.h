#pragma once
// The eight data models of the brief, field for field in canonical order (the order of
// harness/serbench/models/__init__.py). Each struct is a template over a storage policy P; the
// native types (Part, Tweet, ...) are the Native instantiations below.

#include <array>
#include <cstdint>
#include <string_view>

#include "model/record.h"

namespace serbench {

#define SB_FIELD(name) field(#name, &Self::name)

// ---- TPC-H ----------------------------------------------------------------------------

template <class P>
struct PartT {
  using Self = PartT;
  static constexpr std::string_view name_of = "Part";
  int32_t partkey{};
  Str<P> name, mfgr, brand, type;
  int32_t size{};
  Str<P> container;
  double retailprice{};
  Str<P> comment;
  static constexpr auto fields() {
    return std::tuple{SB_FIELD(partkey),   SB_FIELD(name),        SB_FIELD(mfgr),
                      SB_FIELD(brand),     SB_FIELD(type),        SB_FIELD(size),
                      SB_FIELD(container), SB_FIELD(retailprice), SB_FIELD(comment)};
  }
};

template <class P>
struct SupplierT {
  using Self = SupplierT;
  static constexpr std::string_view name_of = "Supplier";
  int32_t suppkey{};
  Str<P> name, address;
  int32_t nationkey{};
  Str<P> phone;
  double acctbal{};
  Str<P> comment;
  static constexpr auto fields() {
    return std::tuple{SB_FIELD(suppkey), SB_FIELD(name),    SB_FIELD(address), SB_FIELD(nationkey),
                      SB_FIELD(phone),   SB_FIELD(acctbal), SB_FIELD(comment)};
  }
};

template <class P>
struct LineItemT {
  using Self = LineItemT;
  static constexpr std::string_view name_of = "LineItem";
  int32_t orderkey{};
  PartT<P> part;
  SupplierT<P> supplier;
  int32_t linenumber{};
  double quantity{}, extendedprice{}, discount{}, tax{};
  Str<P> returnflag, linestatus, shipdate, commitdate, receiptdate, shipinstruct, shipmode, comment;
  static constexpr auto fields() {
    return std::tuple{
        SB_FIELD(orderkey),    SB_FIELD(part),          SB_FIELD(supplier), SB_FIELD(linenumber),
        SB_FIELD(quantity),    SB_FIELD(extendedprice), SB_FIELD(discount), SB_FIELD(tax),
        SB_FIELD(returnflag),  SB_FIELD(linestatus),    SB_FIELD(shipdate), SB_FIELD(commitdate),
        SB_FIELD(receiptdate), SB_FIELD(shipinstruct),  SB_FIELD(shipmode), SB_FIELD(comment)};
  }
};

template <class P>
struct OrderT {
  using Self = OrderT;
  static constexpr std::string_view name_of = "Order";
  int32_t orderkey{}, custkey{};
  Str<P> orderstatus;
  double totalprice{};
  Str<P> orderdate, orderpriority, clerk;
  int32_t shippriority{};
  Str<P> comment;
  Vec<P, LineItemT<P>> lineitems;
  static constexpr auto fields() {
    return std::tuple{SB_FIELD(orderkey),   SB_FIELD(custkey),      SB_FIELD(orderstatus),
                      SB_FIELD(totalprice), SB_FIELD(orderdate),    SB_FIELD(orderpriority),
                      SB_FIELD(clerk),      SB_FIELD(shippriority), SB_FIELD(comment),
                      SB_FIELD(lineitems)};
  }
};

template <class P>
struct CustomerT {
  using Self = CustomerT;
  static constexpr std::string_view name_of = "Customer";
  int32_t custkey{};
  Str<P> name, address;
  int32_t nationkey{};
  Str<P> phone;
  double acctbal{};
  Str<P> mktsegment, comment;
  Vec<P, OrderT<P>> orders;
  static constexpr auto fields() {
    return std::tuple{SB_FIELD(custkey),    SB_FIELD(name),    SB_FIELD(address),
                      SB_FIELD(nationkey),  SB_FIELD(phone),   SB_FIELD(acctbal),
                      SB_FIELD(mktsegment), SB_FIELD(comment), SB_FIELD(orders)};
  }
};

// ---- Tweets ---------------------------------------------------------------------------

template <class P>
struct SizeT {
  using Self = SizeT;
  static constexpr std::string_view name_of = "Size";
  int32_t w{}, h{};
  Str<P> resize;
  static constexpr auto fields() { return std::tuple{SB_FIELD(w), SB_FIELD(h), SB_FIELD(resize)}; }
};

template <class P>
struct SizesT {
  using Self = SizesT;
  static constexpr std::string_view name_of = "Sizes";
  SizeT<P> thumb, small, medium, large;
  static constexpr auto fields() {
    return std::tuple{SB_FIELD(thumb), SB_FIELD(small), SB_FIELD(medium), SB_FIELD(large)};
  }
};

template <class P>
struct HashtagT {
  using Self = HashtagT;
  static constexpr std::string_view name_of = "Hashtag";
  Str<P> text;
  Vec<P, int32_t> indices;
  static constexpr auto fields() { return std::tuple{SB_FIELD(text), SB_FIELD(indices)}; }
};

template <class P>
struct UrlT {
  using Self = UrlT;
  static constexpr std::string_view name_of = "Url";
  Str<P> url;
  Opt<P, Str<P>> expanded_url, display_url;
  Vec<P, int32_t> indices;
  static constexpr auto fields() {
    return std::tuple{SB_FIELD(url), SB_FIELD(expanded_url), SB_FIELD(display_url),
                      SB_FIELD(indices)};
  }
};

template <class P>
struct MentionT {
  using Self = MentionT;
  static constexpr std::string_view name_of = "Mention";
  Str<P> screen_name, name;
  int64_t id{};
  Str<P> id_str;
  Vec<P, int32_t> indices;
  static constexpr auto fields() {
    return std::tuple{SB_FIELD(screen_name), SB_FIELD(name), SB_FIELD(id), SB_FIELD(id_str),
                      SB_FIELD(indices)};
  }
};

template <class P>
struct MediaT {
  using Self = MediaT;
  static constexpr std::string_view name_of = "Media";
  int64_t id{};
  Str<P> id_str;
  Vec<P, int32_t> indices;
  Str<P> media_url, media_url_https, url, display_url, expanded_url, type;
  SizesT<P> sizes;
  Opt<P, int64_t> source_status_id;
  Opt<P, Str<P>> source_status_id_str;
  static constexpr auto fields() {
    return std::tuple{
        SB_FIELD(id),          SB_FIELD(id_str),           SB_FIELD(indices),
        SB_FIELD(media_url),   SB_FIELD(media_url_https),  SB_FIELD(url),
        SB_FIELD(display_url), SB_FIELD(expanded_url),     SB_FIELD(type),
        SB_FIELD(sizes),       SB_FIELD(source_status_id), SB_FIELD(source_status_id_str)};
  }
};

template <class P>
struct EntitiesT {
  using Self = EntitiesT;
  static constexpr std::string_view name_of = "Entities";
  Vec<P, HashtagT<P>> hashtags, symbols;
  Vec<P, UrlT<P>> urls;
  Vec<P, MentionT<P>> user_mentions;
  Opt<P, Vec<P, MediaT<P>>> media;
  static constexpr auto fields() {
    return std::tuple{SB_FIELD(hashtags), SB_FIELD(symbols), SB_FIELD(urls),
                      SB_FIELD(user_mentions), SB_FIELD(media)};
  }
};

template <class P>
struct ExtendedEntitiesT {
  using Self = ExtendedEntitiesT;
  static constexpr std::string_view name_of = "ExtendedEntities";
  Vec<P, MediaT<P>> media;
  static constexpr auto fields() { return std::tuple{SB_FIELD(media)}; }
};

template <class P>
struct BoundingBoxT {
  using Self = BoundingBoxT;
  static constexpr std::string_view name_of = "BoundingBox";
  Str<P> type;
  Vec<P, Vec<P, Vec<P, double>>> coordinates;
  static constexpr auto fields() { return std::tuple{SB_FIELD(type), SB_FIELD(coordinates)}; }
};

template <class P>
struct PlaceT {
  using Self = PlaceT;
  static constexpr std::string_view name_of = "Place";
  Str<P> id, url, place_type, name, full_name, country_code, country;
  Opt<P, BoundingBoxT<P>> bounding_box;
  static constexpr auto fields() {
    return std::tuple{SB_FIELD(id),      SB_FIELD(url),         SB_FIELD(place_type),
                      SB_FIELD(name),    SB_FIELD(full_name),   SB_FIELD(country_code),
                      SB_FIELD(country), SB_FIELD(bounding_box)};
  }
};

template <class P>
struct CoordinatesT {
  using Self = CoordinatesT;
  static constexpr std::string_view name_of = "Coordinates";
  Str<P> type;
  Vec<P, double> coordinates;
  static constexpr auto fields() { return std::tuple{SB_FIELD(type), SB_FIELD(coordinates)}; }
};

template <class P>
struct UserT {
  using Self = UserT;
  static constexpr std::string_view name_of = "User";
  int64_t id{};
  Str<P> id_str, name, screen_name;
  Opt<P, Str<P>> location, url, description;
  bool protected_{}, verified{};
  int32_t followers_count{}, friends_count{}, listed_count{}, favourites_count{}, statuses_count{};
  Str<P> created_at;
  Opt<P, int32_t> utc_offset;
  Opt<P, Str<P>> time_zone;
  bool geo_enabled{};
  Opt<P, Str<P>> lang;
  bool contributors_enabled{}, is_translator{};
  Str<P> profile_background_color;
  Opt<P, Str<P>> profile_background_image_url, profile_background_image_url_https;
  bool profile_background_tile{};
  Str<P> profile_image_url, profile_image_url_https;
  Opt<P, Str<P>> profile_banner_url;
  Str<P> profile_link_color, profile_sidebar_border_color, profile_sidebar_fill_color,
      profile_text_color;
  bool profile_use_background_image{}, default_profile{}, default_profile_image{};
  Opt<P, bool> following, follow_request_sent, notifications;
  static constexpr auto fields() {
    return std::tuple{SB_FIELD(id),
                      SB_FIELD(id_str),
                      SB_FIELD(name),
                      SB_FIELD(screen_name),
                      SB_FIELD(location),
                      SB_FIELD(url),
                      SB_FIELD(description),
                      field("protected", &Self::protected_),
                      SB_FIELD(verified),
                      SB_FIELD(followers_count),
                      SB_FIELD(friends_count),
                      SB_FIELD(listed_count),
                      SB_FIELD(favourites_count),
                      SB_FIELD(statuses_count),
                      SB_FIELD(created_at),
                      SB_FIELD(utc_offset),
                      SB_FIELD(time_zone),
                      SB_FIELD(geo_enabled),
                      SB_FIELD(lang),
                      SB_FIELD(contributors_enabled),
                      SB_FIELD(is_translator),
                      SB_FIELD(profile_background_color),
                      SB_FIELD(profile_background_image_url),
                      SB_FIELD(profile_background_image_url_https),
                      SB_FIELD(profile_background_tile),
                      SB_FIELD(profile_image_url),
                      SB_FIELD(profile_image_url_https),
                      SB_FIELD(profile_banner_url),
                      SB_FIELD(profile_link_color),
                      SB_FIELD(profile_sidebar_border_color),
                      SB_FIELD(profile_sidebar_fill_color),
                      SB_FIELD(profile_text_color),
                      SB_FIELD(profile_use_background_image),
                      SB_FIELD(default_profile),
                      SB_FIELD(default_profile_image),
                      SB_FIELD(following),
                      SB_FIELD(follow_request_sent),
                      SB_FIELD(notifications)};
  }
};

template <class P>
struct TweetT {
  using Self = TweetT;
  static constexpr std::string_view name_of = "Tweet";
  Str<P> created_at;
  int64_t id{};
  Str<P> id_str, text, source;
  bool truncated{};
  Opt<P, int64_t> in_reply_to_status_id, in_reply_to_user_id;
  Opt<P, Str<P>> in_reply_to_screen_name;
  UserT<P> user;
  Opt<P, CoordinatesT<P>> coordinates;
  Opt<P, PlaceT<P>> place;
  Opt<P, int64_t> quoted_status_id;
  bool is_quote_status{};
  Box<P, TweetT> quoted_status, retweeted_status;
  Opt<P, int32_t> quote_count, reply_count;
  int32_t retweet_count{}, favorite_count{};
  EntitiesT<P> entities;
  Opt<P, ExtendedEntitiesT<P>> extended_entities;
  bool favorited{}, retweeted{};
  Opt<P, bool> possibly_sensitive;
  Opt<P, Str<P>> filter_level, lang;
  Opt<P, Vec<P, int32_t>> display_text_range;
  static constexpr auto fields() {
    return std::tuple{SB_FIELD(created_at),
                      SB_FIELD(id),
                      SB_FIELD(id_str),
                      SB_FIELD(text),
                      SB_FIELD(source),
                      SB_FIELD(truncated),
                      SB_FIELD(in_reply_to_status_id),
                      SB_FIELD(in_reply_to_user_id),
                      SB_FIELD(in_reply_to_screen_name),
                      SB_FIELD(user),
                      SB_FIELD(coordinates),
                      SB_FIELD(place),
                      SB_FIELD(quoted_status_id),
                      SB_FIELD(is_quote_status),
                      SB_FIELD(quoted_status),
                      SB_FIELD(retweeted_status),
                      SB_FIELD(quote_count),
                      SB_FIELD(reply_count),
                      SB_FIELD(retweet_count),
                      SB_FIELD(favorite_count),
                      SB_FIELD(entities),
                      SB_FIELD(extended_entities),
                      SB_FIELD(favorited),
                      SB_FIELD(retweeted),
                      SB_FIELD(possibly_sensitive),
                      SB_FIELD(filter_level),
                      SB_FIELD(lang),
                      SB_FIELD(display_text_range)};
  }
};

// ---- Sparse vectors -------------------------------------------------------------------

template <class P>
struct EntryT {
  using Self = EntryT;
  static constexpr std::string_view name_of = "Entry";
  int64_t position{};
  double value{};
  static constexpr auto fields() { return std::tuple{SB_FIELD(position), SB_FIELD(value)}; }
};

template <class P>
struct SparseVectorT {
  using Self = SparseVectorT;
  static constexpr std::string_view name_of = "SparseVector";
  int64_t dimension{};
  Vec<P, EntryT<P>> entries;
  static constexpr auto fields() { return std::tuple{SB_FIELD(dimension), SB_FIELD(entries)}; }
};

// ---- Small objects from micro comparisons ---------------------------------------------

template <class P>
struct TradeT {
  using Self = TradeT;
  static constexpr std::string_view name_of = "Trade";
  int64_t source_id{};
  bool special{};
  int32_t order_code{}, priority{};
  Vec<P, double> prices;
  Vec<P, int64_t> quantities;
  static constexpr auto fields() {
    return std::tuple{SB_FIELD(source_id), SB_FIELD(special), SB_FIELD(order_code),
                      SB_FIELD(priority),  SB_FIELD(prices),  SB_FIELD(quantities)};
  }
};

enum class OrgType : uint8_t { FOO, BAR, BAZ };

template <>
struct EnumSymbols<OrgType> {
  static constexpr std::array<std::string_view, 3> names{"FOO", "BAR", "BAZ"};
};

template <class P>
struct AttrT {
  using Self = AttrT;
  static constexpr std::string_view name_of = "Attr";
  Str<P> id;
  int8_t quantity{}, amount{};
  bool active{};
  double percent{};
  int16_t size{};
  static constexpr auto fields() {
    return std::tuple{SB_FIELD(id),     SB_FIELD(quantity), SB_FIELD(amount),
                      SB_FIELD(active), SB_FIELD(percent),  SB_FIELD(size)};
  }
};

template <class P>
struct OrgT {
  using Self = OrgT;
  static constexpr std::string_view name_of = "Org";
  Str<P> name, category, country;
  OrgType type{};
  Vec<P, AttrT<P>> attributes;
  static constexpr auto fields() {
    return std::tuple{SB_FIELD(name), SB_FIELD(category), SB_FIELD(country), SB_FIELD(type),
                      SB_FIELD(attributes)};
  }
};

template <class P>
struct ArraysT {
  using Self = ArraysT;
  static constexpr std::string_view name_of = "Arrays";
  Vec<P, Str<P>> strings;
  Vec<P, int32_t> ints;
  static constexpr auto fields() { return std::tuple{SB_FIELD(strings), SB_FIELD(ints)}; }
};

#undef SB_FIELD

using Part = PartT<Native>;
using Supplier = SupplierT<Native>;
using LineItem = LineItemT<Native>;
using Order = OrderT<Native>;
using Customer = CustomerT<Native>;
using Tweet = TweetT<Native>;
using User = UserT<Native>;
using SparseVector = SparseVectorT<Native>;
using Trade = TradeT<Native>;
using Org = OrgT<Native>;
using Arrays = ArraysT<Native>;

}  // namespace serbench
