"""Gazetteer-lite: small hand-written lists that decide an entity's type.

Coverage is intentionally modest (common first names, countries, states and large cities,
well-known organisations); cue words (titles, suffixes such as "University" or "River",
prepositions such as "in"/"from") carry the rest. Everything is lower case.
"""

from __future__ import annotations

__all__ = [
    "EVENT_SUFFIXES",
    "FIRST_NAMES",
    "HOLIDAYS",
    "MONTHS",
    "NATIONALITIES",
    "ORGANIZATIONS",
    "ORG_CUE_NOUNS",
    "ORG_PREFIXES",
    "ORG_SUFFIXES",
    "PERSON_CUE_NOUNS",
    "PLACES",
    "PLACES_REGIONS",
    "PLACE_CUE_NOUNS",
    "PLACE_PREFIXES",
    "PLACE_REGION_SUFFIXES",
    "PLACE_SUFFIXES",
    "TITLES",
    "WEEKDAYS",
    "WORK_CUE_NOUNS",
    "WORK_VERBS",
]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _phrases(text: str) -> frozenset[str]:
    return frozenset(p.strip() for p in text.split(",") if p.strip())


MONTHS = {
    name: i + 1
    for i, names in enumerate(
        (
            "january jan",
            "february feb",
            "march mar",
            "april apr",
            "may",
            "june jun",
            "july jul",
            "august aug",
            "september sep sept",
            "october oct",
            "november nov",
            "december dec",
        )
    )
    for name in names.split()
}

WEEKDAYS = _words(
    "monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays "
    "thursdays fridays saturdays sundays mon tue tues wed weds thu thur thurs fri"
)

HOLIDAYS = _phrases(
    "christmas, christmas eve, christmas day, easter, thanksgiving, halloween, hanukkah, "
    "diwali, ramadan, eid, new year, new year's, new year's eve, new year's day, valentine's day, "
    "independence day, labor day, labour day, memorial day, mother's day, father's day, "
    "boxing day, passover, lunar new year, chinese new year"
)

#: Titles and honorifics: stripped from the name, and a strong PERSON cue.
TITLES = _words(
    "mr mrs ms miss mx dr doctor prof professor sir dame lady lord madam madame mister "
    "president vice mayor governor senator congressman congresswoman representative rep sen "
    "gov judge justice king queen prince princess duke duchess emperor empress pope saint "
    "captain capt general gen colonel col lieutenant lt sergeant sgt officer detective "
    "chancellor minister premier sheriff coach uncle aunt auntie grandpa grandma granny "
    "grandpa grandmother grandfather nana papa reverend rev father sister brother rabbi "
    "imam pastor bishop cardinal ceo chairman chairwoman director chef nurse"
)

#: A last token that makes a name an organisation ("Acme Corp", "Boston University").
ORG_SUFFIXES = _words(
    "inc inc. ltd ltd. llc plc corp corp. corporation company co co. group holdings bank "
    "university college institute foundation association society club fc team party "
    "council committee agency department ministry academy school hospital infirmary clinic "
    "airlines airways records studios studio press labs laboratories technologies tech "
    "systems electronics motors pharmaceuticals pharma energy partners capital media network "
    "networks nations union organization organisation ag sa gmbh nv bv ab asa oy "
    "church times post news league federation commission bureau office service services "
    "industries enterprises ventures solutions software games entertainment films pictures "
    "publishing publishers orchestra choir band trust fund authority institution "
    "conservatory seminary"
)

#: A first token that makes a name an organisation ("University of Bologna").
ORG_PREFIXES = _words("university bank ministry department institute college academy")

#: A last token that makes a name a place ("Amazon River", "Grand Canyon").
PLACE_SUFFIXES = _words(
    "city town village county state province prefecture region district river mountain "
    "mountains mount lake island islands isle street st avenue ave road rd boulevard blvd "
    "lane drive park beach valley bay ocean sea gulf strait channel coast desert canyon "
    "falls square plaza bridge airport station palace castle tower cathedral abbey temple "
    "mosque museum gallery stadium arena theatre theater harbor harbour port peninsula "
    "highlands hills hill forest woods glacier volcano reef cape heights gardens garden zoo "
    "mall market center centre hall library memorial monument trail highway route pass "
    "republic kingdom empire territory"
)

#: A first token that makes a name a place ("Mount Kilimanjaro", "Lake Baikal").
PLACE_PREFIXES = _words(
    "mount mt mt. lake lac cape fort port saint st st. san santa sao são isle gulf bay "
    "route café cafe hotel palace camp glen loch north south east west northern southern "
    "eastern western upper lower greater central"
)

#: A last token that makes a name an event ("Glastonbury Festival", "Tokyo Olympics").
EVENT_SUFFIXES = _words(
    "festival olympics games cup championship championships summit conference convention "
    "election elections marathon expo exposition exhibition fair parade tournament revolution "
    "war awards gala ceremony concert tour series open grand prix congress symposium workshop "
    "fest rally protest strike crisis pandemic earthquake hurricane"
)

#: Nouns in front of a name that give its type ("my band Midnight Riders", "my dog Rex").
PERSON_CUE_NOUNS = _words(
    "son daughter wife husband partner boyfriend girlfriend fiance fiancee friend buddy pal "
    "brother sister mom mother dad father grandma grandpa grandmother grandfather uncle aunt "
    "cousin nephew niece boss colleague coworker neighbor neighbour roommate teacher student "
    "mentor coach doctor therapist counselor author writer singer artist actor actress "
    "player baby kid child kids children parents bestie mate"
)
ORG_CUE_NOUNS = _words(
    "band company firm team club group store shop restaurant startup brand label charity "
    "organization organisation nonprofit school university employer publisher agency "
    "business bakery studio bar cafe café gym church"
)
PLACE_CUE_NOUNS = _words(
    "city town village country state island river lake street neighborhood neighbourhood "
    "province region capital suburb county"
)
WORK_CUE_NOUNS = _words(
    "book novel film movie song album show series painting poem play game podcast musical "
    "opera symphony article memoir documentary"
)
#: Verbs whose capitalised object is usually a creative work ("wrote Hamlet").
WORK_VERBS = _words(
    "wrote write writes writing read reads reading painted paint paints composed compose "
    "directed direct published publish watched watch watching recorded released starred "
    "authored sang filmed"
)

#: Nationalities, languages, religions and similar groups (spaCy's NORP and LANGUAGE):
#: typed CONCEPT.
NATIONALITIES = _words(
    "american british english scottish welsh irish french german italian spanish portuguese "
    "dutch belgian swiss austrian swedish norwegian danish finnish icelandic polish czech "
    "slovak hungarian romanian bulgarian greek turkish russian ukrainian belarusian serbian "
    "croatian bosnian slovenian albanian lithuanian latvian estonian georgian armenian "
    "chinese japanese korean vietnamese thai filipino indonesian malaysian indian pakistani "
    "bangladeshi nepali sri lankan afghan iranian persian iraqi syrian lebanese israeli "
    "jewish arab arabic egyptian moroccan algerian tunisian nigerian ghanaian kenyan "
    "ethiopian somali south african canadian mexican brazilian argentine argentinian "
    "chilean peruvian colombian venezuelan cuban jamaican australian kiwi european asian "
    "african latin latino latina hispanic christian catholic protestant muslim islamic "
    "hindu buddhist sikh mormon democrat democrats republican republicans democratic "
    "english spanish mandarin cantonese hindi urdu bengali punjabi tamil swahili hebrew "
    "latin esperanto yiddish gaelic welsh basque catalan flemish nordic slavic celtic "
    "soviet nazi nazis"
)

FIRST_NAMES = _words(
    """
    aaron abby abigail adam adrian ahmed aisha alan albert alex alexander alexandra alexis
    alfred ali alice alicia alison allison amanda amber amelia amir amy ana andre andrea
    andreas andrew andy angela angelo anita ann anna anne annie anthony antonio april arjun
    arthur ashley audrey austin ava barbara beatrice ben benjamin bernard beth betty bianca
    bill billy blake bob bobby brad bradley brandon brenda brian bridget brittany bruce
    bruno bryan caleb calvin cameron camila carl carla carlos carmen carol caroline carolyn
    carter catherine cathy charles charlie charlotte chen chloe chris christian christina
    christine christopher claire clara claudia colin connor craig cynthia dan daniel
    daniela danielle danny david dave dawn dean debbie deborah debra dennis derek diana
    diane diego dominic donald donna doris dorothy douglas dylan eddie edgar edward elaine
    eleanor elena eli elijah elizabeth ella ellen emily emma emmanuel eric erica erik erin
    ethan eugene eva evan evelyn fatima felix fernando fiona frances francesca francis
    frank fred frederick gabriel gabriela gary gavin gemma george georgia gerald gina
    giovanni giulia gloria grace greg gregory hannah harold harry hassan hazel heather
    helen helena henry hiroshi holly howard hugo ian igor ibrahim isaac isabel isabella
    ivan jack jackie jacob jake james jamie jan jane janet janice jared jasmine jason javier
    jay jean jeff jeffrey jen jenna jennifer jenny jeremy jerry jess jessica jesus jill jim
    jimmy jo joan joanna joanne joe joel john johnny jon jonathan jordan jorge jose joseph
    josh joshua joy joyce juan judith judy julia julian julie justin kai karen karl kate
    katherine kathleen kathy katie kayla keith kelly ken kenneth kevin kim kimberly kofi
    kyle larry laura lauren lawrence leah lee lena leo leon leonardo liam lily linda lisa
    logan lois lorenzo louis louise lucas lucia lucy luis luke lydia lynn madison maggie
    mandy marco marcus margaret maria marie marilyn mario marion mark martha martin mary
    mason matt matthew max maya megan mehmet mel melanie melissa mia michael michelle
    miguel mike mila mohammed mohammad muhammad monica nadia nancy naomi natalie nate nathan
    neil nicholas nick nicole nina noah nora oliver olivia omar oscar owen pablo pamela
    patricia patrick paul paula pedro peggy peter philip phillip pierre priya rachel rafael
    rahul raj ralph ramon randy raul ravi ray raymond rebecca richard rick rita rob robert
    roberto robin roger ronald rosa rose ross roy ruby russell ruth ryan sabrina sally sam
    samantha samuel sandra sara sarah scott sean sebastian sergei shannon sharon shawn
    sheila shirley simon sofia sophia sophie stanley stella stephanie stephen steve steven
    sue susan suzanne sylvia tamara tanya teresa terry theresa thomas tiffany tim timothy
    tina todd tom tommy tony tracy travis tyler valerie vanessa vera veronica victor
    victoria vincent virginia walter wanda wayne wendy william willie xavier yasmin yusuf
    zachary zoe zara marta ingrid lars sven astrid anders mikko aino olga natasha dmitri
    yuki kenji akira mei wei li ming jun hana sanjay anil sunita deepak amit neha pooja
    aditya kwame ama amara chidi ngozi thabo zanele tariq layla youssef karim leila nour
    mateo santiago valentina camilo luciana joao thiago beatriz ines manuel francisco
    pietro matteo chiara elisa luca marco hans klaus jurgen stefan lukas jonas anja heidi
    pieter jan willem sanne daan bram agnieszka piotr tomasz katarzyna
    """
)

#: Countries, states, provinces, regions and continents: the "container" places of
#: "Paris, Texas" or "Stanford, California".
PLACES_REGIONS = _phrases(
    """
    afghanistan, albania, algeria, andorra, angola, argentina, armenia, australia, austria,
    azerbaijan, bahamas, bahrain, bangladesh, barbados, belarus, belgium, belize, benin,
    bhutan, bolivia, bosnia, botswana, brazil, brunei, bulgaria, burkina faso, burundi,
    cambodia, cameroon, canada, chad, chile, china, colombia, congo, costa rica, croatia,
    cuba, cyprus, czechia, czech republic, denmark, djibouti, dominica, dominican republic,
    ecuador, egypt, el salvador, eritrea, estonia, eswatini, ethiopia, fiji, finland, france,
    gabon, gambia, georgia, germany, ghana, greece, grenada, guatemala, guinea, guyana, haiti,
    honduras, hungary, iceland, india, indonesia, iran, iraq, ireland, israel, italy, jamaica,
    japan, jordan, kazakhstan, kenya, kiribati, kosovo, kuwait, kyrgyzstan, laos, latvia,
    lebanon, lesotho, liberia, libya, liechtenstein, lithuania, luxembourg, madagascar,
    malawi, malaysia, maldives, mali, malta, mauritania, mauritius, mexico, moldova, monaco,
    mongolia, montenegro, morocco, mozambique, myanmar, burma, namibia, nepal, netherlands,
    holland, new zealand, nicaragua, niger, nigeria, north korea, north macedonia, norway,
    oman, pakistan, palestine, panama, papua new guinea, paraguay, peru, philippines, poland,
    portugal, qatar, romania, russia, rwanda, samoa, san marino, saudi arabia, senegal,
    serbia, seychelles, sierra leone, singapore, slovakia, slovenia, somalia, south africa,
    south korea, korea, south sudan, spain, sri lanka, sudan, suriname, sweden, switzerland,
    syria, taiwan, tajikistan, tanzania, thailand, togo, tonga, trinidad, tunisia, turkey,
    turkmenistan, uganda, ukraine, united arab emirates, uae, united kingdom, uk, britain,
    great britain, england, scotland, wales, northern ireland, united states, usa, us,
    america, uruguay, uzbekistan, vanuatu, vatican, venezuela, vietnam, yemen, zambia,
    zimbabwe, greenland, puerto rico, hong kong, macau, tibet,
    alabama, alaska, arizona, arkansas, california, colorado, connecticut, delaware, florida,
    hawaii, idaho, illinois, indiana, iowa, kansas, kentucky, louisiana, maine, maryland,
    massachusetts, michigan, minnesota, mississippi, missouri, montana, nebraska, nevada,
    new hampshire, new jersey, new mexico, new york, north carolina, north dakota, ohio,
    oklahoma, oregon, pennsylvania, rhode island, south carolina, south dakota, tennessee,
    texas, utah, vermont, virginia, washington, west virginia, wisconsin, wyoming,
    ontario, quebec, british columbia, alberta, manitoba, nova scotia, bavaria, catalonia,
    andalusia, tuscany, sicily, sardinia, provence, normandy, brittany, flanders, siberia,
    scandinavia, patagonia, kerala, punjab, bengal, goa, kashmir, rajasthan, bali, java,
    sumatra, borneo, hokkaido, okinawa, crimea, lapland, yorkshire, cornwall, kent,
    europe, asia, africa, north america, south america, latin america, antarctica, oceania,
    middle east, caribbean, mediterranean, balkans, arctic, sahara, himalayas, alps,
    andes, rockies, pacific, atlantic, earth, moon, mars,
    """
)

_CITIES = _phrases(
    """
    london, paris, berlin, madrid, rome, lisbon, venice, milan, naples, florence, turin,
    barcelona, valencia, seville, porto, amsterdam, rotterdam, brussels, antwerp, vienna,
    zurich, geneva, bern, basel, munich, hamburg, frankfurt, cologne, stuttgart, dresden,
    leipzig, prague, budapest, warsaw, krakow, copenhagen, stockholm, oslo, helsinki,
    reykjavik, dublin, edinburgh, glasgow, manchester, liverpool, birmingham, leeds,
    bristol, oxford, cambridge, athens, istanbul, ankara, moscow, saint petersburg,
    st petersburg, kyiv, kiev, minsk, riga, vilnius, tallinn, bucharest, sofia, belgrade,
    zagreb, ljubljana, sarajevo, lyon, marseille, nice, bordeaux, toulouse, strasbourg,
    the hague, luxembourg city, monaco, salzburg, innsbruck, bonn, nuremberg,
    new york city, los angeles, san francisco, chicago, boston, seattle, portland, denver,
    austin, dallas, houston, san antonio, san diego, phoenix, las vegas, miami, orlando,
    atlanta, nashville, detroit, philadelphia, pittsburgh, baltimore, new orleans,
    minneapolis, st. louis, st louis, kansas city, salt lake city, honolulu, anchorage,
    sacramento, san jose, palo alto, oakland, brooklyn, manhattan, queens, the bronx,
    toronto, montreal, vancouver, ottawa, calgary, mexico city, guadalajara, cancun, havana,
    bogota, lima, santiago, buenos aires, sao paulo, são paulo, rio de janeiro, rio, caracas,
    quito, montevideo, la paz, tokyo, kyoto, osaka, yokohama, seoul, busan, beijing,
    shanghai, shenzhen, guangzhou, taipei, bangkok, hanoi, ho chi minh city, manila,
    jakarta, kuala lumpur, delhi, new delhi, mumbai, bangalore, bengaluru, chennai,
    kolkata, hyderabad, karachi, lahore, islamabad, dhaka, kathmandu, colombo,
    dubai, abu dhabi, doha, riyadh, tehran, baghdad, beirut, damascus, jerusalem, tel aviv,
    amman, cairo, alexandria, casablanca, marrakech, tunis, algiers, lagos, abuja, accra,
    nairobi, kampala, addis ababa, dar es salaam, kigali, johannesburg, cape town,
    durban, sydney, melbourne, brisbane, perth, adelaide, auckland, wellington, venice beach,
    hollywood, silicon valley, wall street, yosemite, yellowstone,
    niagara falls, times square, central park
    """
)

PLACES = PLACES_REGIONS | _CITIES

#: Last words of region names ("Aichi Prefecture", "Orange County").
PLACE_REGION_SUFFIXES = _words("prefecture province state county region district territory")


ORGANIZATIONS = _phrases(
    """
    google, alphabet, apple, microsoft, amazon, meta, facebook, instagram, whatsapp, twitter,
    x corp, tiktok, bytedance, netflix, spotify, youtube, uber, lyft, airbnb, tesla, spacex,
    nvidia, intel, amd, ibm, oracle, salesforce, adobe, openai, anthropic, samsung, sony,
    lg, huawei, xiaomi, lenovo, toyota, honda, nissan, ford, bmw, volkswagen, mercedes,
    audi, siemens, bosch, philips, nokia, ericsson, shell, bp, exxon, chevron, walmart,
    target, costco, ikea, starbucks, mcdonald's, nike, adidas, zara, h&m, coca-cola, pepsi,
    nestle, unilever, disney, pixar, marvel, warner bros, paramount, universal, hbo, bbc,
    cnn, fox news, reuters, bloomberg, the new york times, new york times, the guardian,
    etsy, shopify, ebay, paypal, visa, mastercard, goldman sachs, jpmorgan, morgan stanley,
    deloitte, mckinsey, accenture, boeing, airbus, lufthansa, nasa, fbi, cia, nato, unesco,
    unicef, united nations, european union, eu, un, who, world bank, imf, red cross,
    greenpeace, amnesty international, oxfam, harvard, yale, princeton, stanford, mit,
    oxford university, cambridge university, berkeley, ucla, nyu, congress, parliament,
    senate, supreme court, white house, kremlin, pentagon, fifa, uefa, nba, nfl, mlb, nhl,
    premier league, la liga, ioc, linkedin, reddit, pinterest, snapchat, discord, zoom,
    slack, dropbox, github, wikipedia, mozilla, duolingo, peloton, fitbit, lego, hasbro,
    mattel, nintendo, playstation, xbox, ubisoft, ea
    """
)
