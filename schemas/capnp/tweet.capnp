# Model `tweet` (Twitter API v1.1 status, recursive through quoted/retweeted_status).
# Ordinals follow the canonical order; conventions in ../README.md.
# An optional scalar is a union whose first member `absent` is the default; an optional
# Text, List or struct marked `# optional` is absent when its pointer is null.
@0xa26e6bb84936465a;

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("serbench::cp");

struct Tweet {
  createdAt @0 :Text;
  id @1 :Int64;
  idStr @2 :Text;
  text @3 :Text;
  source @4 :Text;
  truncated @5 :Bool;
  inReplyToStatusId :union { absent @6 :Void; value @7 :Int64; }
  inReplyToUserId :union { absent @8 :Void; value @9 :Int64; }
  inReplyToScreenName @10 :Text;  # optional
  user @11 :User;
  coordinates @12 :Coordinates;  # optional
  place @13 :Place;  # optional
  quotedStatusId :union { absent @14 :Void; value @15 :Int64; }
  isQuoteStatus @16 :Bool;
  quotedStatus @17 :Tweet;  # optional
  retweetedStatus @18 :Tweet;  # optional
  quoteCount :union { absent @19 :Void; value @20 :Int32; }
  replyCount :union { absent @21 :Void; value @22 :Int32; }
  retweetCount @23 :Int32;
  favoriteCount @24 :Int32;
  entities @25 :Entities;
  extendedEntities @26 :ExtendedEntities;  # optional
  favorited @27 :Bool;
  retweeted @28 :Bool;
  possiblySensitive :union { absent @29 :Void; value @30 :Bool; }
  filterLevel @31 :Text;  # optional
  lang @32 :Text;  # optional
  displayTextRange @33 :List(Int32);  # optional
}

struct User {
  id @0 :Int64;
  idStr @1 :Text;
  name @2 :Text;
  screenName @3 :Text;
  location @4 :Text;  # optional
  url @5 :Text;  # optional
  description @6 :Text;  # optional
  protected @7 :Bool;
  verified @8 :Bool;
  followersCount @9 :Int32;
  friendsCount @10 :Int32;
  listedCount @11 :Int32;
  favouritesCount @12 :Int32;
  statusesCount @13 :Int32;
  createdAt @14 :Text;
  utcOffset :union { absent @15 :Void; value @16 :Int32; }
  timeZone @17 :Text;  # optional
  geoEnabled @18 :Bool;
  lang @19 :Text;  # optional
  contributorsEnabled @20 :Bool;
  isTranslator @21 :Bool;
  profileBackgroundColor @22 :Text;
  profileBackgroundImageUrl @23 :Text;  # optional
  profileBackgroundImageUrlHttps @24 :Text;  # optional
  profileBackgroundTile @25 :Bool;
  profileImageUrl @26 :Text;
  profileImageUrlHttps @27 :Text;
  profileBannerUrl @28 :Text;  # optional
  profileLinkColor @29 :Text;
  profileSidebarBorderColor @30 :Text;
  profileSidebarFillColor @31 :Text;
  profileTextColor @32 :Text;
  profileUseBackgroundImage @33 :Bool;
  defaultProfile @34 :Bool;
  defaultProfileImage @35 :Bool;
  following :union { absent @36 :Void; value @37 :Bool; }
  followRequestSent :union { absent @38 :Void; value @39 :Bool; }
  notifications :union { absent @40 :Void; value @41 :Bool; }
}

struct Entities {
  hashtags @0 :List(Hashtag);
  symbols @1 :List(Hashtag);
  urls @2 :List(Url);
  userMentions @3 :List(Mention);
  media @4 :List(Media);  # optional
}

struct Hashtag {
  text @0 :Text;
  indices @1 :List(Int32);
}

struct Url {
  url @0 :Text;
  expandedUrl @1 :Text;  # optional
  displayUrl @2 :Text;  # optional
  indices @3 :List(Int32);
}

struct Mention {
  screenName @0 :Text;
  name @1 :Text;
  id @2 :Int64;
  idStr @3 :Text;
  indices @4 :List(Int32);
}

struct Media {
  id @0 :Int64;
  idStr @1 :Text;
  indices @2 :List(Int32);
  mediaUrl @3 :Text;
  mediaUrlHttps @4 :Text;
  url @5 :Text;
  displayUrl @6 :Text;
  expandedUrl @7 :Text;
  type @8 :Text;
  sizes @9 :Sizes;
  sourceStatusId :union { absent @10 :Void; value @11 :Int64; }
  sourceStatusIdStr @12 :Text;  # optional
}

struct Sizes {
  thumb @0 :Size;
  small @1 :Size;
  medium @2 :Size;
  large @3 :Size;
}

struct Size {
  w @0 :Int32;
  h @1 :Int32;
  resize @2 :Text;
}

struct ExtendedEntities {
  media @0 :List(Media);
}

struct Place {
  id @0 :Text;
  url @1 :Text;
  placeType @2 :Text;
  name @3 :Text;
  fullName @4 :Text;
  countryCode @5 :Text;
  country @6 :Text;
  boundingBox @7 :BoundingBox;  # optional
}

struct BoundingBox {
  type @0 :Text;
  coordinates @1 :List(List(List(Float64)));
}

struct Coordinates {
  type @0 :Text;
  coordinates @1 :List(Float64);
}
